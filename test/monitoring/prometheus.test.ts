/**
 * A real Prometheus (Debian's `prometheus` package) scraping a real controller process every
 * second: every metric family the controller exposes can be queried, the chart's rules load and
 * their recordings have values, and every query of the Grafana dashboard parses and answers a
 * non-empty vector. The controller runs against the embedded API server with a bound claim, a
 * claim whose provisioning fails, a volume whose usage cannot be measured and a Failed PV, so
 * that every family has samples.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { CoreV1Api, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { parseExposition } from '../../src/metrics/text-format.js';
import { onPath } from '../../tools/cluster/binaries.js';
import { freePort, startProcess, waitUntil, type ManagedProcess } from '../../tools/cluster/processes.js';
import { startEmbeddedTestApiServer, type EmbeddedTestApiServer } from '../helpers/apiserver.js';
import { waitFor } from '../helpers/wait.js';
import { dashboardQueries, PROMETHEUS_RULES, recordedNames } from './monitoring.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const prometheusBin = onPath('prometheus');
const skip = prometheusBin ? false : 'prometheus is not installed (Debian: apt-get install prometheus)';

interface QueryAnswer {
  status: string;
  error?: string;
  data?: { resultType: string; result: unknown[] };
}

let dir: string;
let api: EmbeddedTestApiServer;
let controller: ManagedProcess;
let prometheus: ManagedProcess;
let metricsUrl: string;
let prometheusUrl: string;

async function tail(path: string): Promise<string> {
  return (await readFile(path, 'utf8').catch(() => '')).split('\n').slice(-30).join('\n');
}

async function query(expr: string): Promise<QueryAnswer> {
  const res = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expr)}`, { signal: AbortSignal.timeout(5000) });
  return (await res.json()) as QueryAnswer;
}

/** Waits (bounded) until the expression answers a non-empty vector; returns the last answer. */
async function nonEmptyVector(expr: string): Promise<QueryAnswer> {
  let last: QueryAnswer | undefined;
  await waitFor(
    async () => {
      last = await query(expr);
      // A parse error will not go away: stop waiting.
      return last.status === 'error' || (last.status === 'success' && last.data?.resultType === 'vector' && last.data.result.length > 0);
    },
    `a non-empty vector for ${expr}`,
    { timeoutMs: 30_000, intervalMs: 250 },
  ).catch(() => undefined);
  return last ?? { status: 'no answer' };
}

async function createObjects(objects: KubernetesObject[]): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(api.kc);
  for (const o of objects) await client.create(o);
}

function claim(name: string, storageClassName: string, extra: Record<string, unknown> = {}): KubernetesObject {
  const spec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } }, storageClassName, ...extra };
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'default' }, spec } as KubernetesObject;
}

function volume(name: string, path: string, claimRef: Record<string, string>, storageClassName = 'static'): KubernetesObject {
  const spec = {
    capacity: { storage: '1Mi' },
    accessModes: ['ReadWriteOnce'],
    persistentVolumeReclaimPolicy: 'Delete',
    storageClassName,
    hostPath: { path },
    claimRef: { namespace: 'default', ...claimRef },
  };
  return { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec } as KubernetesObject;
}

/** The objects that give every metric family samples. */
async function createWorkload(root: string, missingRoot: string): Promise<void> {
  const cls = (name: string, parameters: Record<string, string> = {}): KubernetesObject =>
    ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'kubernetes.io/host-path', parameters }) as KubernetesObject;
  await createObjects([
    // Each class names its root: with two roots, a class without one spreads claims over both.
    cls('standard', { root }),
    // A configured root that does not exist: every provision call fails (volume_operation_total_errors).
    cls('broken', { root: missingRoot }),
    cls('static'),
    claim('data', 'standard'),
    claim('stuck', 'broken'),
    // Bound to a directory that is not there: its usage cannot be measured (the *_failing series).
    volume('unmeasurable', join(root, 'not-there'), { name: 'unmeasurable' }),
    claim('unmeasurable', 'static', { volumeName: 'unmeasurable' }),
    // Released, outside every root: its delete is refused and it goes Failed.
    volume('hostile', '/etc', { name: 'gone', uid: '00000000-0000-0000-0000-000000000001' }),
    // Released, under the root that is not there: its plugin delete fails (controller_persistentvolume_delete_failed_total).
    volume('rootless', join(missingRoot, 'gone'), { name: 'gone', uid: '00000000-0000-0000-0000-000000000002' }, 'broken'),
    // Provisioned, then deleted: a successful delete (controller_persistentvolume_delete_*).
    claim('doomed', 'standard'),
  ]);
  const core = api.kc.makeApiClient(CoreV1Api);
  await waitFor(
    async () => (await core.readNamespacedPersistentVolumeClaim({ name: 'doomed', namespace: 'default' })).status?.phase === 'Bound',
    'claim doomed to be Bound',
    { timeoutMs: 30_000 },
  );
  await core.deleteNamespacedPersistentVolumeClaim({ name: 'doomed', namespace: 'default' });
}

async function startController(root: string, missingRoot: string): Promise<void> {
  const port = await freePort();
  metricsUrl = `http://127.0.0.1:${port}`;
  const args = [MAIN, 'controller', '--kubeconfig', api.server.kubeconfigPath, '--host-path-root', root, '--host-path-root', missingRoot];
  args.push('--leader-elect', 'true', '--leader-elect-resource-namespace', 'default', '--metrics-bind-address', `127.0.0.1:${port}`);
  args.push('--volume-stats-agg-period', '1s', '--pvclaimbinder-sync-period', '2s', '--pv-recycler-maximum-retry', '1');
  controller = startProcess('pv-controller', process.execPath, args, join(dir, 'controller.log'), dir);
  await waitUntil('the controller answers /readyz', async () => (await fetch(`${metricsUrl}/readyz`)).ok, controller, () => '');
}

async function startPrometheus(): Promise<void> {
  const port = await freePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  const config = [
    'global: { scrape_interval: 1s, evaluation_interval: 1s }',
    `rule_files: [${JSON.stringify(PROMETHEUS_RULES)}]`,
    'scrape_configs:',
    '  - job_name: pv-controller',
    `    static_configs: [{ targets: ["${new URL(metricsUrl).host}"] }]`,
    '',
  ].join('\n');
  await writeFile(join(dir, 'prometheus.yml'), config);
  const args = [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`];
  prometheus = startProcess('prometheus', prometheusBin ?? 'prometheus', args, join(dir, 'prometheus.log'), dir);
  await waitUntil('Prometheus is ready', async () => (await fetch(`${prometheusUrl}/-/ready`)).ok, prometheus, () => '', 60_000);
}

before(async () => {
  if (skip) return;
  dir = await mkdtemp(join(tmpdir(), 'pv-prometheus-'));
  const root = join(dir, 'volumes');
  await mkdir(root);
  api = await startEmbeddedTestApiServer();
  await startController(root, join(dir, 'missing-root'));
  await createWorkload(root, join(dir, 'missing-root'));
  await startPrometheus();
});

after(async () => {
  if (skip) return;
  await prometheus?.stop();
  await controller?.stop();
  await api?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The families of the controller's exposition that have samples, once all of them have. */
/**
 * prom-client's gauge of libuv requests in flight, by type: it has samples only while a request
 * (a file system call, a DNS lookup) is in flight, so an idle controller often has none.
 */
const SOMETIMES_EMPTY = new Set(['nodejs_active_requests']);

/** A sample of this family: its own name, or for histograms and summaries their suffixed series. */
function ofFamily(sample: string, family: string, type: string): boolean {
  if (sample === family) return true;
  return (type === 'histogram' || type === 'summary') && /^_(bucket|sum|count)$/.test(sample.slice(family.length)) && sample.startsWith(family);
}

async function exposedFamilies(): Promise<string[]> {
  let families: Map<string, number> = new Map();
  const text = async (): Promise<string> => (await fetch(`${metricsUrl}/metrics`)).text();
  await waitFor(
    async () => {
      const body = await text();
      const declared = [...body.matchAll(/^# TYPE (\S+) (\S+)$/gm)].filter((m) => !SOMETIMES_EMPTY.has(m[1]));
      const { samples } = parseExposition(body);
      families = new Map(declared.map(([, name, type]) => [name, samples.filter((s) => ofFamily(s.name, name, type)).length]));
      return [...families.values()].every((n) => n > 0);
    },
    'every metric family of the controller to have samples',
    { timeoutMs: 30_000, intervalMs: 250 },
  ).catch(() => undefined);
  const empty = [...families].filter(([, n]) => n === 0).map(([name]) => name);
  assert.deepEqual(empty, [], `families without samples:\n${await tail(join(dir, 'controller.log'))}`);
  return [...families.keys()];
}

test('Prometheus scrapes the controller and answers a query of every metric family it exposes', { skip, timeout: 120_000 }, async () => {
  const families = await exposedFamilies();
  assert.ok(families.length >= 26, `only ${families.length} families: ${families.join(', ')}`);
  const unanswered: string[] = [];
  for (const family of families) {
    const answer = await nonEmptyVector(`count({__name__=~"${family}(_bucket|_sum|_count)?", job="pv-controller"})`);
    if (answer.data?.result.length !== 1) unanswered.push(`${family}: ${JSON.stringify(answer)}`);
  }
  assert.deepEqual(unanswered, [], `Prometheus log:\n${await tail(join(dir, 'prometheus.log'))}`);
});

test('Prometheus loads the chart\'s rules, and every recording rule has a value', { skip, timeout: 120_000 }, async () => {
  const res = await fetch(`${prometheusUrl}/api/v1/rules`);
  const body = (await res.json()) as { data: { groups: Array<{ name: string; rules: Array<{ name: string; health: string; lastError?: string }> }> } };
  const unhealthy = body.data.groups.flatMap((g) => g.rules).filter((r) => r.health === 'err');
  assert.deepEqual(unhealthy, []);
  assert.deepEqual(body.data.groups.map((g) => g.name).sort(), ['pv-controller.alerts', 'pv-controller.recording']);
  const empty: string[] = [];
  for (const name of await recordedNames()) {
    const answer = await nonEmptyVector(name);
    if (!answer.data?.result.length) empty.push(`${name}: ${JSON.stringify(answer)}`);
  }
  assert.deepEqual(empty, []);
});

test('every query of the Grafana dashboard parses and answers a non-empty vector', { skip, timeout: 120_000 }, async () => {
  const queries = await dashboardQueries({ namespace: '.*', __rate_interval: '1m' });
  assert.ok(queries.length >= 20, `only ${queries.length} queries`);
  const failed: string[] = [];
  for (const { panel, expr } of queries) {
    const answer = await nonEmptyVector(expr);
    if (answer.status !== 'success' || answer.data?.resultType !== 'vector' || answer.data.result.length === 0) {
      failed.push(`${panel}: ${expr}\n  -> ${JSON.stringify(answer)}`);
    }
  }
  assert.deepEqual(failed, []);
});

/** Waits (bounded) until the expression answers at least one sample that is a number (not NaN); returns the last answer. */
async function numericVector(expr: string): Promise<QueryAnswer> {
  let last: QueryAnswer | undefined;
  const numeric = (a: QueryAnswer): boolean =>
    (a.data?.result as Array<{ value: [number, string] }> | undefined)?.some((r) => r.value[1] !== 'NaN') ?? false;
  await waitFor(
    async () => {
      last = await query(expr);
      return last.status === 'error' || numeric(last);
    },
    `a number from ${expr}`,
    { timeoutMs: 30_000, intervalMs: 500 },
  ).catch(() => undefined);
  return last ?? { status: 'no answer' };
}

// The work queues (resync every 2 s) and the API requests never stop here, so their p99 over the
// last minute always has observations: NaN there means only a +Inf bucket, as before.
test('the p99 panels of the work queues and the API requests answer numbers, not NaN', { skip, timeout: 120_000 }, async () => {
  const queries = (await dashboardQueries({ namespace: '.*', __rate_interval: '1m' })).filter(
    (q) => q.expr.startsWith('histogram_quantile') && /workqueue_|rest_client_/.test(q.expr),
  );
  assert.ok(queries.length >= 3, `only ${queries.length} p99 queries over the queues and API requests`);
  const nan: string[] = [];
  for (const { panel, expr } of queries) {
    const answer = await numericVector(expr);
    if (answer.status !== 'success' || !answer.data?.result.length) nan.push(`${panel}: ${expr}\n  -> ${JSON.stringify(answer)}`);
    else if ((answer.data.result as Array<{ value: [number, string] }>).every((r) => r.value[1] === 'NaN')) nan.push(`${panel}: NaN`);
  }
  assert.deepEqual(nan, []);
});
