/**
 * The real node the side by side runs on: a kubelet and containerd joined to the real control
 * plane (tools/cluster/nodes.ts), with the pause and busybox images in its runtime. What the
 * harness needs of it: the node's name, the kubelet's and containerd's pids (their CPU is the
 * runtime's), its pod limit (the waves stay within it), and its cgroup root (the pods' CPU).
 */
import type { ControlPlane } from '../../tools/cluster/control-plane.js';
import { nodesUnavailable, TEST_IMAGE } from '../../tools/cluster/node-binaries.js';
import { startNodes } from '../../tools/cluster/nodes.js';

/** The image of the workload pods and of local-path's helper pods: the nodes' busybox. */
export const BENCH_IMAGE = TEST_IMAGE;

export interface BenchNode {
  name: string;
  kubeletPid: number;
  containerdPid?: number;
  maxPods: number;
  /** The kubelet's cgroup root (its pods are under `<root>/kubepods` in each v1 hierarchy). */
  cgroupRoot: string;
}

export interface BenchNodes {
  nodes: BenchNode[];
  /** Stops the kubelets and runtimes (by pid and process group, SIGTERM first) and cleans up after them. */
  stop(): Promise<void>;
}

/** Why no real node can run here, or undefined. */
export function benchNodesUnavailable(): string | undefined {
  return nodesUnavailable();
}

export async function startBenchNodes(plane: ControlPlane, dir: string, maxPods: number): Promise<BenchNodes> {
  const nodes = await startNodes({ controlPlane: plane, count: 1, dir, maxPods });
  return {
    nodes: nodes.nodes.map((n) => ({ name: n.name, kubeletPid: n.kubelet.pid, containerdPid: n.containerd.pid, maxPods, cgroupRoot: n.cgroupRoot })),
    stop: () => nodes.stop(),
  };
}
