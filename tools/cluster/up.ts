/**
 * `npm run cluster:up -- --dir D [--controller-manager] [--scheduler] [--nodes N]`: a real control
 * plane on loopback until Ctrl-C. Writes D/kubeconfig (admin) and D/controller.kubeconfig (the
 * ServiceAccount of deploy/rbac.yaml), and stops every process it started by process group.
 * With --nodes, the plane lives in D/control-plane, N real nodes (kubelet + containerd, nodes.ts)
 * in D/nodes with the pause, busybox and project images loaded, kube-scheduler and
 * kube-controller-manager's node-lifecycle controller run too, and D/kubeconfig is written once
 * every Node is Ready; stopping stops and cleans the nodes.
 */
import { copyFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { controlPlaneUnavailable } from './binaries.js';
import { controlPlaneVersion, KCM_PV_CONTROLLERS, startControlPlane } from './control-plane.js';
import { nodesUnavailable, TEST_IMAGE } from './node-binaries.js';
import { projectImageArchive, type ProjectImage } from './node-images.js';
import { startNodes, type Nodes } from './nodes.js';

const USAGE = `usage: npm run cluster:up -- --dir DIR [--controller-manager] [--hostpath-provisioner] [--scheduler] [--nodes N]

  --dir DIR                 certificates, logs, etcd data and kubeconfigs go here
  --controller-manager      also run kube-controller-manager with only its persistent-volume controllers
  --hostpath-provisioner    with --controller-manager: its own host-path provisioner (under /tmp only)
  --scheduler               also run kube-scheduler
  --nodes N                 also run N nodes (kubelet + containerd; npm run nodes:build), kube-scheduler
                            and the node-lifecycle controller; D/kubeconfig is written once they are Ready
  --max-pods N              the kubelets' maxPods (default 110)
`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string' },
      'controller-manager': { type: 'boolean', default: false },
      'hostpath-provisioner': { type: 'boolean', default: false },
      scheduler: { type: 'boolean', default: false },
      nodes: { type: 'string', default: '0' },
      'max-pods': { type: 'string', default: '110' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (!values.dir) {
    process.stderr.write(`cluster:up: --dir is required\n${USAGE}`);
    process.exit(2);
  }
  const missing = controlPlaneUnavailable();
  if (missing) {
    process.stderr.write(`cluster:up: ${missing}\n`);
    process.exit(1);
  }
  const count = Number(values.nodes);
  const maxPods = Number(values['max-pods']);
  if (!Number.isInteger(count) || count < 0 || count > 16 || !Number.isInteger(maxPods) || maxPods < 1) {
    process.stderr.write(`cluster:up: --nodes takes 0..16 and --max-pods a positive whole number\n${USAGE}`);
    process.exit(2);
  }
  const noNodes = count > 0 ? nodesUnavailable() : undefined;
  if (noNodes) {
    process.stderr.write(`cluster:up: ${noNodes}\n`);
    process.exit(1);
  }
  const top = resolve(values.dir);
  const dir = count > 0 ? join(top, 'control-plane') : top;
  const plane = await startControlPlane({ dir, controllerServiceAccount: true, nodes: count });
  let nodes: Nodes | undefined;
  let project: ProjectImage = { ref: '' };
  const stop = (): void => {
    void (async () => {
      await nodes?.stop();
      await plane.stop();
      process.exit(0);
    })();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const controllers = [...(values['controller-manager'] ? KCM_PV_CONTROLLERS : []), ...(count > 0 ? ['node-lifecycle-controller'] : [])];
  if (controllers.length > 0) await plane.startControllerManager({ controllers, hostPathProvisioner: values['hostpath-provisioner'] });
  if (values.scheduler || count > 0) await plane.startScheduler();
  if (count > 0) {
    project = projectImageArchive(join(top, 'images'));
    if (project.problem) process.stderr.write(`cluster:up: the project's image is not loaded: ${project.problem}\n`);
    process.stderr.write(`cluster:up: starting ${count} node(s) in ${join(top, 'nodes')}\n`);
    nodes = await startNodes({ controlPlane: plane, count, dir: join(top, 'nodes'), images: project.archive ? [project.archive] : [], maxPods });
    await copyFile(plane.kubeconfigPath, join(top, 'kubeconfig'));
  }
  const kubeconfig = join(top, 'kubeconfig');
  process.stdout.write(
    [
      `control plane up (${controlPlaneVersion()}): ${plane.url}`,
      ...(nodes ? [`  nodes:      ${nodes.nodes.map((n) => n.name).join(', ')} Ready (images: ${TEST_IMAGE}, the pause image${project.archive ? `, ${project.ref}` : ''}); pods need hostNetwork: true`] : []),
      `  admin:      kubectl --kubeconfig ${kubeconfig} get ns`,
      `  controller: node dist/src/cli/main.js controller --kubeconfig ${plane.controllerKubeconfigPath} --host-path-root DIR`,
      `  logs and audit log in ${dir}; Ctrl-C stops everything`,
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`cluster:up: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
