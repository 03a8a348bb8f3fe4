/**
 * The configuration files of one test node (nodes.ts): containerd's (config version 3, the CRI
 * plugin built in), the kubelet's KubeletConfiguration and its kubeconfig. Every setting this
 * machine needed beyond the defaults says why (docs/real-cluster.md, "Nodes").
 */
import { stringify } from 'yaml';

export interface NodePaths {
  /** The node's directory: everything below is its own. */
  dir: string;
  containerdRoot: string;
  containerdState: string;
  /** containerd's gRPC socket (the CRI endpoint the kubelet dials). */
  containerdSocket: string;
  runcRoot: string;
  cniConfDir: string;
  cniBinDir: string;
  optDir: string;
  kubeletRoot: string;
  podLogsDir: string;
  kubeletConfig: string;
  kubeletKubeconfig: string;
  containerdConfig: string;
}

export function tomlString(s: string): string {
  return JSON.stringify(s);
}

export function containerdConfig(p: NodePaths, opts: { pauseImage: string; runc: string }): string {
  return [
    '# Written by tools/cluster/nodes.ts for one test node.',
    'version = 3',
    `root = ${tomlString(p.containerdRoot)}`,
    `state = ${tomlString(p.containerdState)}`,
    '',
    '[grpc]',
    `  address = ${tomlString(p.containerdSocket)}`,
    '',
    '[ttrpc]',
    `  address = ${tomlString(`${p.containerdSocket}.ttrpc`)}`,
    '',
    '[metrics]',
    "  address = ''",
    '',
    "[plugins.'io.containerd.internal.v1.opt']",
    `  path = ${tomlString(p.optDir)}`,
    '',
    "[plugins.'io.containerd.cri.v1.images']",
    "  snapshotter = 'overlayfs'",
    '',
    "[plugins.'io.containerd.cri.v1.images'.pinned_images]",
    `  sandbox = ${tomlString(opts.pauseImage)}`,
    '',
    "[plugins.'io.containerd.cri.v1.runtime']",
    // The hugetlb controller is not mounted on these machines.
    '  tolerate_missing_hugetlb_controller = true',
    '  disable_hugetlb_controller = true',
    // CAP_SYS_RESOURCE is missing here: lowering a process's oom_score_adj (the kubelet asks -998
    // for sandboxes) fails in runc's init ("can't get final child's PID from pipe: EOF"). Clamp
    // every score to containerd's own instead.
    '  restrict_oom_score_adj = true',
    '',
    "[plugins.'io.containerd.cri.v1.runtime'.containerd]",
    "  default_runtime_name = 'runc'",
    '',
    "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]",
    "  runtime_type = 'io.containerd.runc.v2'",
    '',
    "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]",
    `  BinaryName = ${tomlString(opts.runc)}`,
    `  Root = ${tomlString(p.runcRoot)}`,
    '  SystemdCgroup = false',
    '',
    "[plugins.'io.containerd.cri.v1.runtime'.cni]",
    `  bin_dirs = [${tomlString(p.cniBinDir)}]`,
    `  conf_dir = ${tomlString(p.cniConfDir)}`,
    '',
    "[plugins.'io.containerd.grpc.v1.cri']",
    '  disable_tcp_service = true',
    "  stream_server_address = '127.0.0.1'",
    "  stream_server_port = '0'",
    '',
    "[plugins.'io.containerd.nri.v1.nri']",
    '  disable = true',
    '',
  ].join('\n');
}

/**
 * The CNI configuration the CRI plugin must find before it reports the pod network ready (the
 * kubelet keeps the Node NotReady until it does). Pods on these nodes run with hostNetwork, so
 * no plugin is ever executed; a pod that asks for its own network fails at sandbox creation
 * (no bridge plugin is installed), which is the documented limit.
 */
export function cniConfig(): string {
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: 'pv-controller-host-only',
    plugins: [{ type: 'bridge', bridge: 'pvnode0', isGateway: false, ipam: { type: 'host-local', ranges: [[{ subnet: '10.244.250.0/24' }]] } }],
  }, null, 2);
}

export interface KubeletSettings {
  nodeName: string;
  port: number;
  healthzPort: number;
  /** Under every cgroup v1 hierarchy; must exist before the kubelet starts. */
  cgroupRoot: string;
  clientCaFile: string;
  maxPods: number;
}

export function kubeletConfig(p: NodePaths, s: KubeletSettings): string {
  return stringify({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: '127.0.0.1',
    port: s.port,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: s.healthzPort,
    podLogsDir: p.podLogsDir,
    containerRuntimeEndpoint: `unix://${p.containerdSocket}`,
    // The API server's requests (logs, exec, proxy) come with the client certificate of
    // control-plane.ts; everything else is checked against the API server.
    authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: s.clientCaFile } },
    authorization: { mode: 'Webhook' },
    // This machine has cgroup v1 only; kubelet 1.35+ refuses it unless told otherwise.
    failCgroupV1: false,
    cgroupDriver: 'cgroupfs',
    cgroupRoot: s.cgroupRoot,
    cgroupsPerQOS: true,
    enforceNodeAllocatable: ['pods'],
    failSwapOn: false,
    // Leave the machine's kernel.panic and vm.overcommit settings as they are.
    protectKernelDefaults: false,
    makeIPTablesUtilChains: false,
    maxPods: s.maxPods,
    // A shared build machine's disk: evict only when truly full, and never collect images.
    evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '1%', 'imagefs.available': '1%', 'nodefs.inodesFree': '1%' },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    resolvConf: '/etc/resolv.conf',
    volumeStatsAggPeriod: '10s',
    nodeStatusReportFrequency: '10s',
    serializeImagePulls: false,
    volumePluginDir: `${p.kubeletRoot}/volume-plugins`,
    registerNode: true,
    // NotReady until containerd and the kubelet say otherwise; nothing else taints.
    registerWithTaints: [],
    staticPodPath: '',
  });
}

export function kubeletKubeconfig(server: string, caPem: string, nodeName: string, token: string): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'cluster', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    users: [{ name: `system:node:${nodeName}`, user: { token } }],
    contexts: [{ name: 'node', context: { cluster: 'cluster', user: `system:node:${nodeName}` } }],
    'current-context': 'node',
  });
}
