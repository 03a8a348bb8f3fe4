/**
 * Real nodes for the real control plane: each node is one containerd (its CRI plugin built in,
 * runc from the machine) and one kubelet of the control plane's release, both in process groups
 * of their own, with their own root and state directories, sockets, ports and cgroup root under
 * `dir/<node>`. A kubelet joins as `system:node:<name>` with the token the control plane issued
 * (control-plane.ts, `nodes`). Pods run with hostNetwork (no CNI plugin is installed; see
 * node-config.ts). stop() drains nothing: it stops the kubelets, then the containers, shims and
 * containerd of each node by pid or process group (SIGTERM first), unmounts everything under the
 * node directories, removes the node's cgroups and the directories.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { request, type RequestOptions } from 'node:https';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { killCgroupTree, makeCgroupRoot, removeCgroupRoot, signalShims, unmountUnder } from './node-cleanup.js';
import { cniConfig, containerdConfig, kubeletConfig, kubeletKubeconfig, type NodePaths } from './node-config.js';
import { findRunc, kubeletPath, nodesUnavailable, PAUSE_IMAGE, runtimeDir, runtimePath } from './node-binaries.js';
import { importImages, nodeImageArchives } from './node-images.js';
import type { ControlPlane } from './control-plane.js';
import { NodeAddresses } from './node-ip.js';
import { freePort, startProcess, waitUntil, type ManagedProcess } from './processes.js';

export interface StartNodesOptions {
  controlPlane: ControlPlane;
  /** node-1..node-<count>; the control plane must have been started with `nodes` ≥ count. */
  count: number;
  dir: string;
  /** Image archives (OCI or docker-archive) to import besides the pause and busybox images. */
  images?: string[];
  maxPods?: number;
  /** How long to wait for each Node to be Ready (default 180 s). */
  readyTimeoutMs?: number;
  /**
   * Give each node an address of its own as its InternalIP (node-ip.ts: 198.18.<run>.<i>/32 on
   * the loopback device, removed by stop()), instead of the machine's one address for all:
   * host-network pods of different nodes then bind the same port each on its own node's
   * address, as on separate machines (the chart's two replicas), and nothing of theirs listens
   * on the machine's real interface.
   */
  distinctAddresses?: boolean;
}

export interface NodeHandle {
  name: string;
  dir: string;
  paths: NodePaths;
  /** The kubelet's HTTPS port on 127.0.0.1 (the API server proxies /metrics, logs... to it). */
  kubeletPort: number;
  healthzPort: number;
  /** The node's cgroup root, under every v1 hierarchy. */
  cgroupRoot: string;
  containerd: ManagedProcess;
  kubelet: ManagedProcess;
  /** `ctr` against this node's containerd, in the CRI namespace. */
  ctr(args: string[]): string;
  /**
   * GET `path` (e.g. /metrics) from the kubelet's port, as kube-apiserver does (its
   * kubelet-client certificate), checking the kubelet's self-signed serving certificate.
   * kube-apiserver's own node proxy (/api/v1/nodes/<n>/proxy/...) refuses loopback addresses
   * ("address not allowed"), and these kubelets listen on 127.0.0.1 only.
   */
  kubeletGet(path: string): Promise<string>;
}

export interface Nodes {
  nodes: NodeHandle[];
  stop(): Promise<void>;
}

function tail(path: string, lines = 40): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function httpsGet(url: string, tls: RequestOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ...tls, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`GET ${url}: ${res.statusCode}: ${body.slice(0, 300)}`))));
    });
    req.once('error', reject);
    req.once('timeout', () => req.destroy(new Error(`GET ${url}: timed out`)));
    req.end();
  });
}

function nodePaths(dir: string): NodePaths {
  return {
    dir,
    containerdRoot: join(dir, 'containerd', 'root'),
    containerdState: join(dir, 'containerd', 'state'),
    containerdSocket: join(dir, 'containerd', 'containerd.sock'),
    runcRoot: join(dir, 'containerd', 'runc'),
    cniConfDir: join(dir, 'cni', 'net.d'),
    cniBinDir: join(dir, 'cni', 'bin'),
    optDir: join(dir, 'containerd', 'opt'),
    kubeletRoot: join(dir, 'kubelet'),
    podLogsDir: join(dir, 'pod-logs'),
    kubeletConfig: join(dir, 'kubelet-config.yaml'),
    kubeletKubeconfig: join(dir, 'kubelet.kubeconfig'),
    containerdConfig: join(dir, 'containerd.toml'),
  };
}

async function isReady(core: CoreV1Api, name: string): Promise<boolean> {
  const node = await core.readNode({ name });
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** Why the Node is not Ready yet, from its conditions (for a timeout's message). */
async function readiness(core: CoreV1Api, name: string): Promise<string> {
  try {
    const node = await core.readNode({ name });
    return (node.status?.conditions ?? []).map((c) => `${c.type}=${c.status} ${c.reason ?? ''} ${c.message ?? ''}`).join('; ') || 'no conditions';
  } catch (err) {
    return `no Node object (${err instanceof Error ? err.message : String(err)})`;
  }
}

/** How to take one node down: its kubelet first (all nodes'), then the rest in reverse order of start. */
interface NodeStops {
  kubelet?: ManagedProcess;
  rest: Array<() => Promise<void> | void>;
}

async function startNode(opts: StartNodesOptions, name: string, runId: string, stops: NodeStops, address?: string): Promise<NodeHandle> {
  const plane = opts.controlPlane;
  const token = plane.nodeCredentials?.tokens[name];
  if (!plane.nodeCredentials || !token) throw new Error(`the control plane has no credentials for ${name}: start it with nodes ≥ ${opts.count}`);
  const dir = join(opts.dir, name);
  const p = nodePaths(dir);
  for (const d of [p.containerdRoot, p.containerdState, p.runcRoot, p.cniConfDir, p.cniBinDir, p.optDir, p.kubeletRoot, p.podLogsDir]) await mkdir(d, { recursive: true });
  const cgroupRoot = `/pv-nodes-${runId}/${name}`;
  makeCgroupRoot(cgroupRoot);
  stops.rest.push(() => removeCgroupRoot(cgroupRoot), () => unmountUnder(dir));
  const runc = findRunc();
  if (!runc) throw new Error('runc is not on PATH');
  await writeFile(p.containerdConfig, containerdConfig(p, { pauseImage: PAUSE_IMAGE, runc }));
  await writeFile(join(p.cniConfDir, '10-host-only.conflist'), cniConfig());
  const env = { PATH: `${runtimeDir()}:${process.env.PATH ?? ''}` };
  const containerd = startProcess(`containerd ${name}`, runtimePath('containerd'), ['--config', p.containerdConfig, '--log-level', 'warn'], join(dir, 'containerd.log'), dir, env);
  stops.rest.push(async () => {
    await killCgroupTree(cgroupRoot);
    await signalShims(p.containerdSocket);
    await containerd.stop();
  });
  const ctr = (args: string[]): string => execFileSync(runtimePath('ctr'), ['--address', p.containerdSocket, '--namespace', 'k8s.io', ...args], { encoding: 'utf8' });
  await waitUntil(`containerd of ${name} answers`, async () => existsSync(p.containerdSocket) && /Server:/.test(ctr(['version'])), containerd, () => tail(containerd.logPath), 60_000);
  importImages(p.containerdSocket, [...nodeImageArchives(), ...(opts.images ?? [])]);

  const [port, healthzPort] = [await freePort(), await freePort()];
  await writeFile(p.kubeletConfig, kubeletConfig(p, { nodeName: name, port, healthzPort, cgroupRoot, clientCaFile: plane.nodeCredentials.kubeletClientCaPath, maxPods: opts.maxPods ?? 110 }));
  await writeFile(p.kubeletKubeconfig, kubeletKubeconfig(plane.url, plane.caPem, name, token), { mode: 0o600 });
  const kubelet = startProcess(`kubelet ${name}`, kubeletPath(), [
    `--config=${p.kubeletConfig}`,
    `--kubeconfig=${p.kubeletKubeconfig}`,
    `--root-dir=${p.kubeletRoot}`,
    `--cert-dir=${join(p.kubeletRoot, 'pki')}`,
    `--hostname-override=${name}`,
    ...(address ? [`--node-ip=${address}`] : []),
    '--v=1',
  ], join(dir, 'kubelet.log'), dir, env);
  stops.kubelet = kubelet;
  const core = plane.admin().makeApiClient(CoreV1Api);
  try {
    await waitUntil(`Node ${name} is Ready`, () => isReady(core, name), kubelet, () => tail(kubelet.logPath), opts.readyTimeoutMs ?? 180_000);
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\nNode ${name}: ${await readiness(core, name)}`);
  }
  const creds = plane.nodeCredentials;
  const kubeletGet = (path: string): Promise<string> => httpsGet(`https://127.0.0.1:${port}${path}`, {
    ca: readFileSync(join(p.kubeletRoot, 'pki', 'kubelet.crt')),
    cert: readFileSync(creds.kubeletClientCertPath),
    key: readFileSync(creds.kubeletClientKeyPath),
    // The self-signed certificate names the node, not 127.0.0.1; it is pinned as the only CA.
    checkServerIdentity: () => undefined,
  });
  return { name, dir, paths: p, kubeletPort: port, healthzPort, cgroupRoot, containerd, kubelet, ctr, kubeletGet };
}

/** Starts `count` nodes one after the other and waits until each Node is Ready. */
export async function startNodes(opts: StartNodesOptions): Promise<Nodes> {
  const problem = nodesUnavailable();
  if (problem) throw new Error(problem);
  const runId = randomBytes(4).toString('hex');
  await mkdir(opts.dir, { recursive: true });
  const perNode: NodeStops[] = [];
  const addresses = opts.distinctAddresses ? new NodeAddresses() : undefined;
  const stop = async (): Promise<void> => {
    // Every kubelet first (so none restarts a container being stopped), then each node's rest.
    await Promise.all(perNode.map((n) => n.kubelet?.stop()));
    for (const n of perNode) {
      for (const s of n.rest.reverse()) {
        try {
          await s();
        } catch {
          // Best effort: go on with the rest of the clean-up.
        }
      }
    }
    perNode.length = 0;
    addresses?.release();
    await rm(opts.dir, { recursive: true, force: true });
  };
  const nodes: NodeHandle[] = [];
  try {
    for (let i = 1; i <= opts.count; i++) {
      const stops: NodeStops = { rest: [] };
      perNode.push(stops);
      nodes.push(await startNode(opts, `node-${i}`, runId, stops, addresses?.take(i)));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { nodes, stop };
}
