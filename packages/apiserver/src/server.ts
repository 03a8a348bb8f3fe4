/**
 * `startApiServer`: the embedded Kubernetes-compatible API server over HTTPS with one bearer
 * token, backed by memory or SQLite storage. The kubeconfig is written (atomically) only once
 * the server accepts requests.
 */
import { ADMIN, EMBEDDED_AUTHZ_NOTE } from './api/identity.js';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { loadOrCreateToken } from './http/auth.js';
import { storedObjectRepair } from './decode/stored-objects.js';
import { writeKubeconfig } from './http/kubeconfig.js';
import type { HealthCheck } from './http/health.js';
import { ApiServerMetrics, type StoredObjectCounter } from './http/metrics.js';
import { GarbageCollector } from './controllers/garbage-collection.js';
import { NamespaceFinalizer } from './controllers/namespace-finalizer.js';
import { PodGarbageCollector } from './controllers/pod-gc.js';
import { CrdController } from './controllers/crd-controller.js';
import { builtInDefinitions } from './resources/custom/built-in-definitions.js';
import { decodeOwnWrite } from './decode/object-decode.js';
import { Registry } from './registry/registry.js';
import { KUBERNETES_SERVICE_IP } from './resources/core/service-allocation.js';
import { storageResource } from './api/router.js';
import { createRequestHandler } from './http/request-handler.js';
import type { ResourceStrategy } from './resources/strategy.js';
import { RequestStats, type ApiStats, type RequestRecord } from './http/stats.js';
import { openStorage } from './storage/index.js';
import type { Storage } from './storage/storage.js';
import { loadOrCreateTls } from './http/tls.js';
import { WatchHub } from './endpoints/watch.js';

export interface ApiServerOptions {
  dataDir: string;
  storage?: 'sqlite' | 'memory';
  /** host:port; default 127.0.0.1:0 (a free port). */
  listen?: string;
  logger?: Logger;
  /** How often watches that asked for bookmarks get one (default 60 s). */
  bookmarkIntervalMs?: number;
  /** Bytes queued on one watch before the rest waits for its client to read (default 256 KiB). */
  watchWindowBytes?: number;
  /** How long a watch with a full window may read nothing before it is closed (default 30 s). */
  watchStallMs?: number;
  /** Changes kept for watch replay (older resourceVersions get 410 Expired); storage default when unset. */
  retainChanges?: number;
  /** Resources served (default: all built-in strategies). */
  strategies?: ResourceStrategy[];
  /**
   * Whether deleted namespaces are emptied and finalized, as kube-controller-manager's namespace
   * controller does (default true). Off, they stay Terminating, as on a kube-apiserver alone.
   */
  namespaceController?: boolean;
  /**
   * Whether the orphan and foregroundDeletion finalizers of a propagated delete are acted on, as
   * kube-controller-manager's garbage collector does (default true). Off, they hold the object.
   */
  garbageCollector?: boolean;
  /**
   * Whether a terminating Pod bound to a node no kubelet serves is deleted once its grace period
   * is over, as kube-controller-manager's pod GC does for a node that is gone (default true).
   * Off, such a Pod stays Terminating, as on a kube-apiserver with no kubelet.
   */
  podGarbageCollector?: boolean;
}

export interface RunningApiServer {
  url: string;
  port: number;
  token: string;
  caPem: string;
  kubeconfigPath: string;
  /** Request counters since start (or the last resetStats). */
  stats(): ApiStats;
  /** The last ≤1000 requests, oldest first. */
  recentRequests(): RequestRecord[];
  resetStats(): void;
  stop(): Promise<void>;
}

const IDLE_KEEPALIVE_MS = 120_000;

const KUBERNETES_SERVICE_LABELS = { component: 'apiserver', provider: 'kubernetes' };

/** Namespaces every cluster has. */
const BOOTSTRAP_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(listen);
  if (!m) throw new Error(`--listen must be host:port, got "${listen}"`);
  const port = Number(m[3]);
  if (port > 65535) throw new Error(`--listen port out of range: ${port}`);
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The CustomResourceDefinitions the server always serves (the snapshot kinds), stored as a user's
 * would be, so `kubectl get crd` lists them and an apply of external-snapshotter's own updates
 * them; created once, left as they are after that.
 */
async function bootstrapDefinitions(registry: Registry): Promise<void> {
  const crd = registry.strategyFor('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
  if (!crd) return;
  for (const definition of builtInDefinitions()) {
    const name = definition.metadata.name ?? '';
    if (!registry.storage.get(registry.keyOf(crd, '', name))) {
      await registry.create(crd, '', decodeOwnWrite(crd.info, structuredClone(definition), ''), { fieldManager: 'kube-apiserver' });
    }
  }
}

async function bootstrapNamespaces(registry: Registry): Promise<void> {
  const ns = registry.strategyFor('', 'v1', 'namespaces');
  if (!ns) return;
  for (const name of BOOTSTRAP_NAMESPACES) {
    if (!registry.storage.get({ resource: 'namespaces', namespace: '', name })) {
      await registry.create(ns, '', decodeOwnWrite(ns.info, { metadata: { name } }, ''));
    }
  }
}

/**
 * The `kubernetes` Service in `default`, pointing at this server's port, as kube-apiserver's
 * bootstrap controller keeps it (the spec it writes, under its own name as the manager):
 * created once, its target port updated when the port changed.
 */
async function reconcileKubernetesService(registry: Registry, port: number): Promise<void> {
  const svc = registry.strategyFor('', 'v1', 'services');
  if (!svc) return;
  const spec = {
    ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: port }],
    clusterIP: KUBERNETES_SERVICE_IP,
    type: 'ClusterIP',
    sessionAffinity: 'None',
    ipFamilyPolicy: 'SingleStack',
  };
  const asApiServer = { fieldManager: 'kube-apiserver' };
  const existing = registry.storage.get({ resource: 'services', namespace: 'default', name: 'kubernetes' });
  if (!existing) {
    const service = { metadata: { name: 'kubernetes', labels: KUBERNETES_SERVICE_LABELS }, spec };
    await registry.create(svc, 'default', decodeOwnWrite(svc.info, service, 'default'), asApiServer);
    return;
  }
  const ports = (existing.spec as { ports?: { targetPort?: unknown }[] } | undefined)?.ports ?? [];
  if (ports.length === 1 && ports[0].targetPort === port) return;
  const updated = { ...existing, spec: { ...(existing.spec as object), ports: spec.ports } };
  await registry.update(svc, 'default', 'kubernetes', decodeOwnWrite(svc.info, updated, 'default'), asApiServer);
}

function listenOn(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

async function openConfiguredStorage(opts: ApiServerOptions, strategies: ResourceStrategy[], logger: Logger): Promise<Storage> {
  if (opts.storage === 'sqlite') {
    const dir = join(opts.dataDir, 'db');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const repairLoaded = storedObjectRepair(strategies, logger);
    return await openStorage({ kind: 'sqlite', dir, retainChanges: opts.retainChanges, logger, repairLoaded });
  }
  return await openStorage({ kind: 'memory', retainChanges: opts.retainChanges, logger });
}

/** How long a connection may take to send its request headers. */
const REQUEST_HEADERS_TIMEOUT_MS = 32_000;

export async function startApiServer(opts: ApiServerOptions): Promise<RunningApiServer> {
  const log = opts.logger ?? pino({ level: 'info' });
  await mkdir(opts.dataDir, { recursive: true, mode: 0o700 });
  const { host, port } = parseListen(opts.listen ?? '127.0.0.1:0');
  const [tls, token] = await Promise.all([loadOrCreateTls(opts.dataDir, host), loadOrCreateToken(opts.dataDir)]);
  const strategies = opts.strategies ?? (await import('./resources/index.js')).strategies;
  const storage = await openConfiguredStorage(opts, strategies, log);
  const registry = new Registry({ storage, strategies });
  await bootstrapNamespaces(registry);
  await bootstrapDefinitions(registry);
  const crdController = registry.strategyFor('apiextensions.k8s.io', 'v1', 'customresourcedefinitions') ? new CrdController(registry, log) : undefined;
  await crdController?.start();
  const namespaceFinalizer = opts.namespaceController === false ? undefined : new NamespaceFinalizer(registry, log);
  namespaceFinalizer?.start();
  const garbageCollector = opts.garbageCollector === false ? undefined : new GarbageCollector(registry, log);
  garbageCollector?.start();
  const podGc = opts.podGarbageCollector === false ? undefined : new PodGarbageCollector(registry, log);
  podGc?.start();
  const hub = new WatchHub(storage, {
    log,
    bookmarkIntervalMs: opts.bookmarkIntervalMs,
    windowBytes: opts.watchWindowBytes,
    stallMs: opts.watchStallMs,
  });
  const stats = new RequestStats();
  let address = '';
  const server = createServer({ key: tls.keyPem, cert: tls.certPem });
  // Outlast clients' idle pools (Go: 90 s) so they, not we, close idle keep-alive connections:
  // a server-side close racing a new request shows up as ECONNRESET in the client.
  server.keepAliveTimeout = IDLE_KEEPALIVE_MS;
  // kube-apiserver's ReadHeaderTimeout (k8s.io/apiserver secure_serving.go): a client that never
  // finishes its request headers has its connection closed after 32 s.
  server.headersTimeout = REQUEST_HEADERS_TIMEOUT_MS;
  let stopping: Promise<void> | undefined;
  const metrics = new ApiServerMetrics(storedObjectCounter(registry));
  const healthChecks = serverHealthChecks(storage, () => stopping !== undefined);
  server.on('request', createRequestHandler({ registry, hub, stats, token, log, serverAddress: () => address, metrics, healthChecks }));
  const bound = await listenOn(server, host, port);
  address = `${urlHost(host)}:${bound.port}`;
  await reconcileKubernetesService(registry, bound.port);
  const url = `https://${address}`;
  const kubeconfigPath = join(opts.dataDir, 'kubeconfig');
  await writeKubeconfig(kubeconfigPath, url, tls.caPem, token);
  log.info({ url, kubeconfig: kubeconfigPath, storage: opts.storage ?? 'memory' }, 'API server listening');
  // Once, at start: what this server's authorization is, so nobody takes it for RBAC.
  log.info({ user: ADMIN.username, groups: ADMIN.groups }, EMBEDDED_AUTHZ_NOTE);
  const stop = (): Promise<void> => {
    namespaceFinalizer?.stop();
    garbageCollector?.stop();
    podGc?.stop();
    crdController?.stop();
    stopping ??= stopServer(server, hub, storage, log);
    return stopping;
  };
  return {
    url,
    port: bound.port,
    token,
    caPem: tls.caPem,
    kubeconfigPath,
    stats: () => stats.snapshot(hub.activeWatches()),
    recentRequests: () => stats.recent(),
    resetStats: () => stats.reset(),
    stop,
  };
}

function storedObjectCounter(registry: Registry): StoredObjectCounter {
  return {
    resources: () => registry.strategies.map((s) => ({ group: s.info.group, plural: s.info.plural })),
    count: (group, plural) => registry.storage.list(storageResource(group, plural)).length,
  };
}

/** ping and log always pass; storage passes while a read succeeds; shutdown (readyz only) fails once stopping. */
function serverHealthChecks(storage: Storage, isStopping: () => boolean): HealthCheck[] {
  const storageProblem = (): string | undefined => {
    try {
      storage.get({ resource: 'namespaces', namespace: '', name: 'default' });
      return undefined;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  };
  return [
    { name: 'ping', check: () => undefined },
    { name: 'log', check: () => undefined },
    { name: 'storage', check: storageProblem },
    { name: 'shutdown', check: () => (isStopping() ? 'the server is shutting down' : undefined) },
  ];
}

async function stopServer(server: Server, hub: WatchHub, storage: Storage, log: Logger): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  hub.close();
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), 2000);
  await closed;
  clearTimeout(force);
  await storage.close();
  log.info('API server stopped');
}
