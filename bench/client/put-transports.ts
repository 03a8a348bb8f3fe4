/**
 * PUT of a PersistentVolume over TLS against the embedded API server (`pv-controller apiserver
 * --storage memory`, in a child process), in one run, by three clients:
 *   raw       a bare https keep-alive client doing the controller's JSON work (stringify, parse):
 *             what the controller's RestTransport did before it went through client-node
 *   shared    the controller's path: KubeApiClient.updateVolume → CoreV1Api.replacePersistentVolume
 *             over SharedAgentAuthentication (one keep-alive agent per TLS identity)
 *   per-call  CoreV1Api from kc.makeApiClient: client-node's default, a new https.Agent per call
 * plus `shared-typed` (CoreV1Api over the shared agent, typed bodies, no plain-JSON conversion)
 * to show what the conversion costs. Sequential (1 in flight) and concurrent (--workers in
 * flight, one PV each); variants interleaved, order rotated each repetition; median ms per PUT
 * and the median of same-repetition ratios to raw.
 *
 *   node <out>/bench/client/put-transports.js [--reps 7] [--seq 200] [--workers 16] [--each 50]
 */
import https from 'node:https';
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CoreV1Api, KubeConfig, type V1PersistentVolume } from '@kubernetes/client-node';
import { KubeApiClient } from '../../src/kube-client/kube-api-client.js';
import { RestTransport } from '../../src/kube-client/transport.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { cliPath } from '../paths.js';
import { startChild, waitFor, type RunningChild } from '../proc/child.js';
import { median, medianOfRatios } from '../stats.js';
import { runPool } from './pool.js';

/** One PUT of `pv` (labelled with `n`); resolves to the stored object. */
type PutVolume = (pv: PersistentVolume, n: number) => Promise<PersistentVolume>;

interface Variant {
  name: string;
  put: PutVolume;
  close(): void;
}

const relabel = (pv: PersistentVolume, n: number): PersistentVolume => ({
  ...pv,
  metadata: { ...pv.metadata, labels: { ...pv.metadata.labels, n: String(n) } },
});

async function rawVariant(kc: KubeConfig): Promise<Variant> {
  const opts: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const agent = new https.Agent({ keepAlive: true, maxSockets: 64, scheduling: 'lifo', ca: opts.ca, cert: opts.cert, key: opts.key });
  const server = new URL(kc.getCurrentCluster()?.server ?? '');
  const headers = opts.headers as Record<string, string>;
  const put: PutVolume = (pv, n) =>
    new Promise((resolve, reject) => {
      const body = Buffer.from(JSON.stringify(relabel(pv, n)));
      const url = new URL(`/api/v1/persistentvolumes/${encodeURIComponent(pv.metadata.name ?? '')}`, server);
      const req = https.request(url, {
        method: 'PUT',
        agent,
        headers: { ...headers, Accept: 'application/json', 'Content-Type': 'application/json', 'Content-Length': body.length },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) reject(new Error(`raw PUT: HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
          else resolve(JSON.parse(text) as PersistentVolume);
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  return { name: 'raw', put, close: () => agent.destroy() };
}

function sharedVariant(kc: KubeConfig): Variant {
  const transport = new RestTransport(kc, { qps: 0, burst: 0 });
  const api = new KubeApiClient(transport);
  return { name: 'shared', put: (pv, n) => api.updateVolume(relabel(pv, n)), close: () => transport.close() };
}

function typedVariant(name: string, core: CoreV1Api, close: () => void): Variant {
  const put: PutVolume = async (pv, n) => {
    const body = relabel(pv, n) as unknown as V1PersistentVolume;
    return (await core.replacePersistentVolume({ name: pv.metadata.name ?? '', body })) as unknown as PersistentVolume;
  };
  return { name, put, close };
}

async function startServer(): Promise<{ child: RunningChild; kc: KubeConfig }> {
  const dir = mkdtempSync(join(tmpdir(), 'put-transports-'));
  const child = startChild({
    label: 'apiserver',
    script: cliPath(),
    args: ['apiserver', '--data-dir', dir, '--storage', 'memory', '--listen', '127.0.0.1:0'],
    logDir: dir,
  });
  const kubeconfig = join(dir, 'kubeconfig');
  await waitFor('the API server to write its kubeconfig', () => (existsSync(kubeconfig) ? true : undefined));
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return { child, kc };
}

async function createVolumes(api: KubeApiClient, prefix: string, count: number): Promise<PersistentVolume[]> {
  const out: PersistentVolume[] = [];
  for (let i = 0; i < count; i++) {
    const name = `${prefix}-${i}`;
    out.push(await api.createVolume({
      metadata: { name },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', hostPath: { path: `/tmp/${name}` } },
    }));
  }
  return out;
}

interface Timing {
  /** Wall-clock ms per PUT. */
  ms: number;
  /** This (client) process' CPU µs per PUT, user + system. */
  cpuUs: number;
}

/** Per PUT: `workers` chains (one PV each) of `each` PUTs, every PUT on the previous result. */
async function timePuts(variant: Variant, volumes: PersistentVolume[], each: number): Promise<Timing> {
  let n = 0;
  const cpu = process.cpuUsage();
  const result = await runPool(volumes.length, volumes.length, async (i) => {
    for (let k = 0; k < each; k++) volumes[i] = await variant.put(volumes[i], n++);
  });
  const used = process.cpuUsage(cpu);
  const puts = volumes.length * each;
  return { ms: result.elapsedMs / puts, cpuUs: (used.user + used.system) / puts };
}

interface Samples {
  seq: Map<string, Timing[]>;
  conc: Map<string, Timing[]>;
}

function push(samples: Map<string, Timing[]>, name: string, t: Timing): void {
  const list = samples.get(name) ?? [];
  list.push(t);
  samples.set(name, list);
}

function report(samples: Samples, names: string[], workers: number): void {
  for (const [label, byName] of [['sequential (1 in flight)', samples.seq], [`concurrent (${workers} in flight)`, samples.conc]] as const) {
    console.log(`\n${label}: median ms/PUT, ratio to raw · client CPU µs/PUT, ratio to raw`);
    const raw = byName.get('raw') ?? [];
    for (const name of names) {
      const t = byName.get(name) ?? [];
      const ms = t.map((x) => x.ms);
      const cpu = t.map((x) => x.cpuUs);
      const msRatio = medianOfRatios(ms, raw.map((x) => x.ms));
      const cpuRatio = medianOfRatios(cpu, raw.map((x) => x.cpuUs));
      console.log(
        `  ${name.padEnd(13)} ${(median(ms) ?? NaN).toFixed(3)} ms ${msRatio?.toFixed(2) ?? 'n/a'}×` +
          `   ${(median(cpu) ?? NaN).toFixed(0)} µs CPU ${cpuRatio?.toFixed(2) ?? 'n/a'}×   [ms: ${ms.map((v) => v.toFixed(3)).join(' ')}]`,
      );
    }
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { reps: { type: 'string', default: '7' }, seq: { type: 'string', default: '200' }, workers: { type: 'string', default: '16' }, each: { type: 'string', default: '50' } },
  });
  const [reps, seq, workers, each] = [values.reps, values.seq, values.workers, values.each].map(Number);
  const { child, kc } = await startServer();
  const setup = new RestTransport(kc, { qps: 0, burst: 0 });
  const variants: Variant[] = [];
  try {
    const api = new KubeApiClient(setup);
    await waitFor('the API server to answer', async () => ((await setup.request({ method: 'GET', verb: 'get', path: '/version' }).catch(() => undefined)) ? true : undefined));
    const sharedTransport = new RestTransport(kc, { qps: 0, burst: 0 });
    variants.push(await rawVariant(kc), sharedVariant(kc), typedVariant('shared-typed', sharedTransport.core, () => sharedTransport.close()));
    variants.push(typedVariant('per-call', kc.makeApiClient(CoreV1Api), () => undefined));
    const samples: Samples = { seq: new Map(), conc: new Map() };
    const volumes = new Map<string, { one: PersistentVolume[]; many: PersistentVolume[] }>();
    for (const v of variants) volumes.set(v.name, { one: await createVolumes(api, `${v.name}-s`, 1), many: await createVolumes(api, `${v.name}-c`, workers) });
    for (const v of variants) await timePuts(v, volumes.get(v.name)!.one, 30); // warm-up
    for (let r = 0; r < reps; r++) {
      const order = variants.map((_, i) => variants[(i + r) % variants.length]);
      for (const v of order) {
        const vols = volumes.get(v.name)!;
        push(samples.seq, v.name, await timePuts(v, vols.one, seq));
        push(samples.conc, v.name, await timePuts(v, vols.many, each));
      }
      process.stderr.write(`repetition ${r + 1}/${reps} done\n`);
    }
    report(samples, variants.map((v) => v.name), workers);
  } finally {
    for (const v of variants) v.close();
    setup.close();
    await child.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
