/**
 * A real Kubernetes control plane on loopback, started the way envtest starts one: etcd, then
 * kube-apiserver with TLS, a token file, Node+RBAC authorization, service-account signing keys,
 * the default admission plugins and an audit log; optionally kube-controller-manager (only the
 * persistent-volume controllers) and kube-scheduler. Everything listens on 127.0.0.1 and runs in
 * its own process group.
 *
 * Several API servers may share one etcd (`etcdUrl`), each under its own `--etcd-prefix`, so a
 * test suite gets a fresh, empty cluster per test for the price of a kube-apiserver start.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { writeKubeconfig } from '@pv-controller/apiserver/http/kubeconfig.js';
import { loadOrCreateTls } from '@pv-controller/apiserver/http/tls.js';
import { binaryPath, REPO_ROOT, versions } from './binaries.js';
import { apiServerKubeletArgs, apiServerSeeingNodes, makeNodeCredentials, nodeTokenLines, type NodeCredentials } from './node-credentials.js';
import { freePort, startProcess, waitUntil, type ManagedProcess } from './processes.js';

export interface ControlPlaneOptions {
  /** Directory for certificates, logs, kubeconfigs and (without etcdUrl) etcd's data. */
  dir: string;
  /** Use this etcd instead of starting one. */
  etcdUrl?: string;
  /** Key prefix in etcd (default: a fresh random one, so shared etcd never mixes clusters). */
  etcdPrefix?: string;
  /** Extra kube-apiserver flags (`--name=value`). */
  apiServerArgs?: string[];
  /** Create the ServiceAccount and roles of deploy/rbac.yaml and write D/controller.kubeconfig. */
  controllerServiceAccount?: boolean;
  /** Those roles from another file of deploy/ (e.g. rbac-csi.yaml: the controller driving CSI drivers). */
  controllerRbac?: string;
  /** Let the etcd it starts fsync its log (default off: tests want speed, not durability). */
  etcdFsync?: boolean;
  /** Write the audit log (default on; a benchmark of the server alone turns it off). */
  auditLog?: boolean;
  /**
   * Keep kube-apiserver's ServiceAccount admission (default off: pods created by tests then have
   * no token volume to mount). On for pods a kubelet runs that talk to the API server in-cluster,
   * such as the chart's: each gets its ServiceAccount's projected token and kube-root-ca.crt.
   */
  serviceAccountAdmission?: boolean;
  /** Credentials for this many kubelets, node-1..node-N (nodes.ts), and kube-apiserver set to reach them. */
  nodes?: number;
}

export interface ControllerManagerOptions {
  controllers?: string[];
  /** kube-controller-manager's own host-path provisioner (it only provisions under /tmp). */
  hostPathProvisioner?: boolean;
  syncPeriod?: string;
  qps?: number;
  burst?: number;
  extraArgs?: string[];
}

export interface ControlPlane {
  dir: string;
  url: string;
  caPem: string;
  adminToken: string;
  /** Admin (system:masters) kubeconfig. */
  kubeconfigPath: string;
  /** The ServiceAccount kubeconfig of deploy/rbac.yaml, when asked for. */
  controllerKubeconfigPath?: string;
  auditLogPath: string;
  /** The kubelets' credentials, when the plane was started with `nodes`. */
  nodeCredentials?: NodeCredentials;
  etcdUrl: string;
  apiServerPid: number;
  /** Absent when the plane uses an etcd it did not start (`etcdUrl`). */
  etcdPid?: number;
  admin(): KubeConfig;
  startControllerManager(opts?: ControllerManagerOptions): Promise<ManagedProcess>;
  startScheduler(): Promise<ManagedProcess>;
  stop(): Promise<void>;
}

/** The persistent-volume controllers of kube-controller-manager (names since 1.28). */
export const KCM_PV_CONTROLLERS = [
  'persistentvolume-binder-controller',
  'persistentvolume-protection-controller',
  'persistentvolumeclaim-protection-controller',
];

/** Every request at Metadata level: user, verb, resource, code and the authorizer's decision. */
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
`;

function tail(path: string, lines = 40): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function httpsOk(url: string, caPem: string, token?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { ca: caPem, headers: token ? { Authorization: `Bearer ${token}` } : {}, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once('error', () => resolve(false));
    req.once('timeout', () => req.destroy());
    req.end();
  });
}

async function startEtcd(dir: string, fsync = false): Promise<{ proc: ManagedProcess; url: string }> {
  const [client, peer] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${client}`;
  const logPath = join(dir, 'etcd.log');
  const proc = startProcess('etcd', binaryPath('etcd'), [
    `--data-dir=${join(dir, 'etcd-data')}`,
    `--listen-client-urls=${url}`,
    `--advertise-client-urls=${url}`,
    `--listen-peer-urls=http://127.0.0.1:${peer}`,
    `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
    `--initial-cluster=default=http://127.0.0.1:${peer}`,
    ...(fsync ? [] : ['--unsafe-no-fsync']),
    '--log-level=warn',
  ], logPath, dir);
  await waitUntil('etcd answers /health', () => httpOk(`${url}/health`), proc, () => tail(logPath));
  return { proc, url };
}

async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  return res.ok;
}

/** Starts etcd alone (for several API servers to share). */
export async function startSharedEtcd(dir: string): Promise<{ url: string; stop(): Promise<void> }> {
  await mkdir(dir, { recursive: true });
  const { proc, url } = await startEtcd(dir);
  return { url, stop: () => proc.stop() };
}

async function writeServiceAccountKeys(dir: string): Promise<{ pub: string; key: string }> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pub = join(dir, 'sa.pub');
  const key = join(dir, 'sa.key');
  await writeFile(pub, publicKey.export({ type: 'spki', format: 'pem' }));
  await writeFile(key, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  return { pub, key };
}

function kubeConfigFor(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

/** Creates the objects of deploy/rbac.yaml (or `file` of deploy/) and returns a TokenRequest token for its ServiceAccount. */
async function bootstrapControllerAccount(admin: KubeConfig, file = 'rbac.yaml'): Promise<string> {
  const docs = parseAllDocuments(await readFile(join(REPO_ROOT, 'deploy', file), 'utf8'));
  const objects = docs.map((d) => d.toJS() as KubernetesObject).filter((o) => o && o.kind);
  const client = KubernetesObjectApi.makeApiClient(admin);
  let account: KubernetesObject | undefined;
  for (const obj of objects) {
    await client.create(obj);
    if (obj.kind === 'ServiceAccount') account = obj;
  }
  if (!account?.metadata?.name || !account.metadata.namespace) throw new Error('deploy/rbac.yaml has no namespaced ServiceAccount');
  const core = admin.makeApiClient(CoreV1Api);
  const review = await core.createNamespacedServiceAccountToken({
    name: account.metadata.name,
    namespace: account.metadata.namespace,
    body: { spec: { audiences: [], expirationSeconds: 24 * 3600 } },
  });
  if (!review.status?.token) throw new Error('the TokenRequest answered no token');
  return review.status.token;
}

export async function startControlPlane(opts: ControlPlaneOptions): Promise<ControlPlane> {
  const dir = opts.dir;
  await mkdir(dir, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    stops.length = 0;
  };
  try {
    let etcdUrl = opts.etcdUrl;
    let etcdPid: number | undefined;
    if (!etcdUrl) {
      const etcd = await startEtcd(dir, opts.etcdFsync);
      stops.push(() => etcd.proc.stop());
      etcdUrl = etcd.url;
      etcdPid = etcd.proc.pid;
    }
    const tls = await loadOrCreateTls(dir, '127.0.0.1');
    const adminToken = randomBytes(24).toString('hex');
    const nodeCredentials = opts.nodes ? await makeNodeCredentials(dir, opts.nodes) : undefined;
    const nodeTokens = nodeCredentials ? nodeTokenLines(nodeCredentials.tokens) : '';
    await writeFile(join(dir, 'tokens.csv'), `${adminToken},admin,admin-uid,system:masters\n${nodeTokens}`, { mode: 0o600 });
    await writeFile(join(dir, 'audit-policy.yaml'), AUDIT_POLICY);
    const sa = await writeServiceAccountKeys(dir);
    const port = await freePort();
    const url = `https://127.0.0.1:${port}`;
    const auditLogPath = join(dir, 'audit.log');
    const logPath = join(dir, 'kube-apiserver.log');
    const prefix = opts.etcdPrefix ?? `/registry-${randomBytes(6).toString('hex')}`;
    const apiServer = nodeCredentials ? await apiServerSeeingNodes(dir, Object.keys(nodeCredentials.tokens)) : { bin: binaryPath('kube-apiserver'), args: [] };
    const proc = startProcess('kube-apiserver', apiServer.bin, [
      ...apiServer.args,
      `--etcd-servers=${etcdUrl}`,
      `--etcd-prefix=${prefix}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${join(dir, 'pki')}`,
      `--tls-cert-file=${join(dir, 'pki', 'apiserver.crt')}`,
      `--tls-private-key-file=${join(dir, 'pki', 'apiserver.key')}`,
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      '--authorization-mode=Node,RBAC',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${sa.pub}`,
      `--service-account-signing-key-file=${sa.key}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      // No ServiceAccount admission unless asked: pods created by tests have no token volume to mount.
      ...(opts.serviceAccountAdmission ? [] : ['--disable-admission-plugins=ServiceAccount']),
      ...(opts.auditLog === false
        ? []
        : [`--audit-policy-file=${join(dir, 'audit-policy.yaml')}`, `--audit-log-path=${auditLogPath}`, '--audit-log-maxsize=0']),
      ...(nodeCredentials ? apiServerKubeletArgs(nodeCredentials) : []),
      ...(opts.apiServerArgs ?? []),
    ], logPath, dir);
    stops.push(() => proc.stop());
    await waitUntil('kube-apiserver is ready', () => httpsOk(`${url}/readyz`, tls.caPem, adminToken), proc, () => tail(logPath));
    const kubeconfigPath = join(dir, 'kubeconfig');
    await writeKubeconfig(kubeconfigPath, url, tls.caPem, adminToken);
    let controllerKubeconfigPath: string | undefined;
    if (opts.controllerServiceAccount) {
      const token = await bootstrapControllerAccount(kubeConfigFor(kubeconfigPath), opts.controllerRbac);
      controllerKubeconfigPath = join(dir, 'controller.kubeconfig');
      await writeKubeconfig(controllerKubeconfigPath, url, tls.caPem, token);
    }
    const plane: ControlPlane = {
      dir,
      url,
      caPem: tls.caPem,
      adminToken,
      kubeconfigPath,
      controllerKubeconfigPath,
      auditLogPath,
      nodeCredentials,
      etcdUrl,
      apiServerPid: proc.pid,
      etcdPid,
      admin: () => kubeConfigFor(kubeconfigPath),
      async startControllerManager(kcm = {}) {
        const log = join(dir, 'kube-controller-manager.log');
        const p = startProcess('kube-controller-manager', binaryPath('kube-controller-manager'), [
          `--kubeconfig=${kubeconfigPath}`,
          '--leader-elect=false',
          '--use-service-account-credentials=false',
          `--controllers=${(kcm.controllers ?? KCM_PV_CONTROLLERS).join(',')}`,
          '--secure-port=0',
          `--pvclaimbinder-sync-period=${kcm.syncPeriod ?? '15s'}`,
          `--kube-api-qps=${kcm.qps ?? 20}`,
          `--kube-api-burst=${kcm.burst ?? 30}`,
          ...(kcm.hostPathProvisioner ? ['--enable-hostpath-provisioner=true'] : []),
          ...(kcm.extraArgs ?? []),
        ], log, dir);
        stops.push(() => p.stop());
        return p;
      },
      async startScheduler() {
        const log = join(dir, 'kube-scheduler.log');
        const p = startProcess('kube-scheduler', binaryPath('kube-scheduler'), [
          `--kubeconfig=${kubeconfigPath}`,
          '--leader-elect=false',
          '--secure-port=0',
        ], log, dir);
        stops.push(() => p.stop());
        return p;
      },
      stop: stopAll,
    };
    return plane;
  } catch (err) {
    await stopAll();
    throw err;
  }
}

export function controlPlaneVersion(): string {
  const v = versions();
  return `Kubernetes ${v.kubernetes}, etcd ${v.etcd}`;
}
