/**
 * The real nodes the chart runs on: kubelets and containerd joined to a real control plane by
 * tools/cluster/nodes.ts (issue 28's foundation), each with the project's image imported. This
 * file says precisely why the suite skips where it cannot run, and starts the control plane the
 * chart needs — ServiceAccount admission on (the chart's pods talk to kube-apiserver in-cluster,
 * with a projected token and kube-root-ca.crt), privileged pods allowed (the sized-volume
 * agents), kube-controller-manager with the workload controllers (Deployments, ReplicaSets,
 * DaemonSets, disruption budgets for drain, pod GC, the root CA publisher; never its PV
 * controllers: ours bind) and kube-scheduler. The nodes get addresses of their own (127.0.0.<i>),
 * so the controller's replicas on two nodes each bind the metrics port on their node's address.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { imageSupportProblem } from '../../../src/plugins/host-path/image-volume.js';
import { findHelm, findKubectl, onPath, REPO_ROOT } from '../../../tools/cluster/binaries.js';
import type { ControlPlane } from '../../../tools/cluster/control-plane.js';
import { nodesUnavailable, TEST_IMAGE } from '../../../tools/cluster/node-binaries.js';
import { projectImageArchive } from '../../../tools/cluster/node-images.js';
import { startNodes, type NodeHandle } from '../../../tools/cluster/nodes.js';
import { realControlPlaneSkip, startTestControlPlane } from '../../helpers/control-plane.js';

/** The project's image as `npm run image:build` tags it (the package version), imported into each node's containerd. */
export const CONTROLLER_IMAGE = {
  repository: 'localhost/pv-controller',
  tag: (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version,
};
const CONTROLLER_REF = `${CONTROLLER_IMAGE.repository}:${CONTROLLER_IMAGE.tag}`;

/** The busybox image the nodes load for workloads. */
export const WORKLOAD_IMAGE = TEST_IMAGE;

function projectImageProblem(): string | undefined {
  if (!onPath('podman')) return `podman is not installed, so the project's image ${CONTROLLER_REF} cannot be exported for the nodes`;
  try {
    execFileSync('podman', ['image', 'exists', CONTROLLER_REF], { stdio: 'ignore' });
    return undefined;
  } catch {
    return `the project's image ${CONTROLLER_REF} is not in podman's storage: run \`npm run image:build\``;
  }
}

/** Why the chart cannot run on real nodes here, or false when it can. */
export function realNodesSkip(): string | false {
  return (
    realControlPlaneSkip() ||
    (findHelm() ? undefined : 'helm is neither on PATH nor built (`npm run cluster:build`)') ||
    (findKubectl() ? undefined : 'kubectl is neither on PATH nor built (`npm run cluster:build`)') ||
    nodesUnavailable() ||
    imageSupportProblem() ||
    projectImageProblem() ||
    false
  );
}

/** kube-controller-manager's controllers the chart's workloads and a drain need (and none of its PV controllers). */
export const WORKLOAD_CONTROLLERS = [
  'deployment-controller',
  'replicaset-controller',
  'daemonset-controller',
  'disruption-controller',
  'garbage-collector-controller',
  'pod-garbage-collector-controller',
  'root-ca-certificate-publisher-controller',
  'serviceaccount-controller',
  'node-lifecycle-controller',
  'taint-eviction-controller',
];

export type Plane = ControlPlane & { removeDir(): Promise<void> };

export interface ChartCluster {
  plane: Plane;
  nodes: NodeHandle[];
  /** The port kube-apiserver listens on at 127.0.0.1 (the pods use the host's network). */
  apiServerPort: number;
  stop(): Promise<void>;
}

/** A control plane with the workload controllers and `count` Ready nodes; stop() stops nodes, then the plane. */
export async function startChartCluster(work: string, count: number): Promise<ChartCluster> {
  const image = projectImageArchive(join(work, 'images'), CONTROLLER_REF);
  if (!image.archive) throw new Error(image.problem ?? `cannot export ${CONTROLLER_REF}`);
  const plane = await startTestControlPlane({
    controllerServiceAccount: false,
    serviceAccountAdmission: true,
    apiServerArgs: ['--allow-privileged=true'],
    nodes: count,
  });
  try {
    const caFile = join(work, 'ca.crt');
    await writeFile(caFile, plane.caPem);
    await plane.startControllerManager({ controllers: WORKLOAD_CONTROLLERS, extraArgs: [`--root-ca-file=${caFile}`] });
    await plane.startScheduler();
    const started = await startNodes({ controlPlane: plane, count, dir: join(work, 'nodes'), images: [image.archive], distinctAddresses: true });
    return {
      plane,
      nodes: started.nodes,
      apiServerPort: Number(new URL(plane.url).port),
      async stop() {
        try {
          await started.stop();
        } finally {
          await plane.stop();
          await plane.removeDir();
        }
      },
    };
  } catch (err) {
    await plane.stop();
    await plane.removeDir();
    throw err;
  }
}
