/**
 * `npm run cluster:up -- --dir D [--controller-manager] [--scheduler]`: a real control plane on
 * loopback until Ctrl-C. Writes D/kubeconfig (admin) and D/controller.kubeconfig (the
 * ServiceAccount of deploy/rbac.yaml), and stops every process it started by process group.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { controlPlaneUnavailable } from './binaries.js';
import { controlPlaneVersion, startControlPlane } from './control-plane.js';

const USAGE = `usage: npm run cluster:up -- --dir DIR [--controller-manager] [--hostpath-provisioner] [--scheduler]

  --dir DIR                 certificates, logs, etcd data and kubeconfigs go here
  --controller-manager      also run kube-controller-manager with only its persistent-volume controllers
  --hostpath-provisioner    with --controller-manager: its own host-path provisioner (under /tmp only)
  --scheduler               also run kube-scheduler
`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string' },
      'controller-manager': { type: 'boolean', default: false },
      'hostpath-provisioner': { type: 'boolean', default: false },
      scheduler: { type: 'boolean', default: false },
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
  const dir = resolve(values.dir);
  const plane = await startControlPlane({ dir, controllerServiceAccount: true });
  if (values['controller-manager']) await plane.startControllerManager({ hostPathProvisioner: values['hostpath-provisioner'] });
  if (values.scheduler) await plane.startScheduler();
  process.stdout.write(
    [
      `control plane up (${controlPlaneVersion()}): ${plane.url}`,
      `  admin:      kubectl --kubeconfig ${plane.kubeconfigPath} get ns`,
      `  controller: node dist/src/cli/main.js controller --kubeconfig ${plane.controllerKubeconfigPath} --host-path-root DIR`,
      `  logs and audit log in ${dir}; Ctrl-C stops everything`,
      '',
    ].join('\n'),
  );
  const stop = (): void => {
    void plane.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`cluster:up: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
