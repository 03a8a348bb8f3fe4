/**
 * Issue 24's large single requests against the embedded API server (`pv-controller apiserver`,
 * memory storage, a child process): for each, how long the answer took, its status and size,
 * how far the server's resident set grew (peak RSS after /proc/<pid>/clear_refs reset it), and
 * the slowest /readyz answer while it ran (a probe every 100 ms: how long the event loop was
 * held). A request that kills the server is reported as such and the server restarted.
 *
 *   npm run build && node dist/bench/hostile-limits.js [--runs 3] [--timeout 200] [name-substring ...]
 *
 * Prints one line per run and the medians per request.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  claimsPath, claimWith, controllerRefs, emptyRefs, finalizers, forgedContinueToken, podsPath, podWith, PVS, pvTextWithSpecArray,
  pvWith, repeatedJsonArray, SCS, storageClassWith, tolerations, topologyTerms,
} from '../packages/apiserver/test/hostile/large-shapes.js';
import { peakRssBytes, startChild, waitFor, type RunningChild } from './proc/child.js';
import { installSignalCleanup } from './proc/cleanup.js';
import { median } from './stats.js';

interface Server {
  child: RunningChild;
  url: string;
  token: string;
  ca: string;
}

interface Sent {
  method: string;
  path: string;
  body?: string;
  contentType?: string;
}

interface Case {
  name: string;
  /** Requests sent (and answered) before the measured one. */
  setup?: Sent[];
  request: () => Sent;
}

interface Answer {
  code: number;
  bytes: number;
  head: string;
}

const NS = 'default';
const json = (v: unknown): string => JSON.stringify(v);
const dry = (path: string): string => `${path}?dryRun=All`;
const podTolerations = tolerations(20_000);

const CASES: Case[] = [
  { name: 'pv 3,700 controller refs (dryRun POST)', request: () => ({ method: 'POST', path: dry(PVS), body: json(pvWith('refs', {}, { ownerReferences: controllerRefs(3700) })) }) },
  {
    name: 'claim merge patch, 3,700 controller refs',
    setup: [{ method: 'POST', path: claimsPath(NS), body: json(claimWith('refs', NS)) }],
    request: () => ({ method: 'PATCH', path: `${claimsPath(NS)}/refs`, contentType: 'application/merge-patch+json', body: json({ metadata: { ownerReferences: controllerRefs(3700) } }) }),
  },
  { name: 'sc 52,000 allowedTopologies terms (dryRun POST)', request: () => ({ method: 'POST', path: dry(SCS), body: json(storageClassWith('topo', { allowedTopologies: topologyTerms(52_000) })) }) },
  {
    name: 'pod PUT, 20,000 tolerations reversed',
    setup: [{ method: 'POST', path: podsPath(NS), body: json(podWith('tol', NS, { tolerations: podTolerations })) }],
    request: () => ({ method: 'PUT', path: `${podsPath(NS)}/tol`, body: json(podWith('tol', NS, { tolerations: [...podTolerations].reverse() })) }),
  },
  { name: 'pv 1,000,000 empty accessModes (dryRun POST)', request: () => ({ method: 'POST', path: dry(PVS), body: pvTextWithSpecArray('modes', 'accessModes', repeatedJsonArray('', 1_000_000)) }) },
  { name: 'pv 100,000 empty ownerReferences (dryRun POST)', request: () => ({ method: 'POST', path: dry(PVS), body: json(pvWith('refs', {}, { ownerReferences: emptyRefs(100_000) })) }) },
  { name: 'pv 100,000 finalizers (dryRun POST)', request: () => ({ method: 'POST', path: dry(PVS), body: json(pvWith('fins', {}, { finalizers: finalizers(100_000) })) }) },
  { name: 'pv 100,000 invalid finalizers (dryRun POST)', request: () => ({ method: 'POST', path: dry(PVS), body: json(pvWith('fins', {}, { finalizers: finalizers(100_000, false) })) }) },
  { name: 'pv 1,000,000 mountOptions (dryRun POST)', request: () => ({ method: 'POST', path: dry(PVS), body: pvTextWithSpecArray('mounts', 'mountOptions', repeatedJsonArray('', 1_000_000)) }) },
  { name: 'list with a forged continue token (rv 1e308)', request: () => ({ method: 'GET', path: `${PVS}?limit=1&continue=${forgedContinueToken(1e308)}` }) },
];

function send(server: Server, sent: Sent, timeoutMs: number): Promise<Answer> {
  const { hostname, port } = new URL(server.url);
  const headers: Record<string, string> = { Accept: 'application/json', Authorization: `Bearer ${server.token}` };
  if (sent.body !== undefined) {
    headers['Content-Type'] = sent.contentType ?? 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(sent.body));
  }
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ hostname, port, path: sent.path, method: sent.method, headers, ca: server.ca, agent: false, timeout: timeoutMs }, (res) => {
      let bytes = 0;
      let head = '';
      res.on('data', (c: Buffer) => {
        if (head.length < 160) head += c.toString('utf8', 0, Math.min(c.length, 160));
        bytes += c.length;
      });
      res.on('end', () => resolve({ code: res.statusCode ?? 0, bytes, head: head.slice(0, 160) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(sent.body);
  });
}

async function startServer(dir: string): Promise<Server> {
  const dataDir = mkdtempSync(join(dir, 'server-'));
  const script = new URL('../src/cli/main.js', import.meta.url).pathname;
  const child = startChild({ label: 'apiserver', script, args: ['apiserver', '--data-dir', dataDir, '--storage', 'memory', '--listen', '127.0.0.1:0'], logDir: dir });
  const kubeconfig = await waitFor('the kubeconfig', () => {
    if (child.exitStatus() !== undefined) throw new Error(`the server exited: ${String(child.exitStatus())}`);
    try {
      return readFileSync(join(dataDir, 'kubeconfig'), 'utf8');
    } catch {
      return undefined;
    }
  });
  const field = (name: string): string => new RegExp(`${name}: (\\S+)`).exec(kubeconfig)?.[1] ?? '';
  const server = { child, url: field('server'), token: field('token'), ca: Buffer.from(field('certificate-authority-data'), 'base64').toString() };
  await waitFor('readyz', async () => ((await send(server, { method: 'GET', path: '/readyz' }, 5000).catch(() => undefined))?.code === 200 ? true : undefined));
  return server;
}

/** Probes /readyz every 100 ms until stopped; resolves with the slowest answer's time (ms). */
function probeReadyz(server: Server): { stop: () => Promise<number> } {
  let running = true;
  let slowest = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await send(server, { method: 'GET', path: '/readyz' }, 600_000).catch(() => undefined);
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return { stop: async () => { running = false; await loop; return slowest; } };
}

interface Measured { seconds: number; code: number | string; mb: number; rssGrowthMb: number; readyzMaxMs: number }

async function measure(server: Server, c: Case, timeoutMs: number): Promise<Measured> {
  for (const s of c.setup ?? []) await send(server, s, timeoutMs);
  const sent = c.request();
  const rssBefore = peakRssBytes(server.child.pid) ?? 0;
  writeFileSync(`/proc/${server.child.pid}/clear_refs`, '5');
  const probe = probeReadyz(server);
  const started = performance.now();
  let answer: Answer | string;
  try {
    answer = await send(server, sent, timeoutMs);
  } catch (err) {
    await Promise.race([server.child.exited, new Promise((r) => setTimeout(r, 2000))]);
    answer = server.child.exitStatus() !== undefined ? `server died (${String(server.child.exitStatus())})` : String(err);
  }
  const seconds = (performance.now() - started) / 1000;
  const readyzMaxMs = await probe.stop();
  const peak = peakRssBytes(server.child.pid) ?? rssBefore;
  const code = typeof answer === 'string' ? answer : answer.code;
  const mb = typeof answer === 'string' ? 0 : answer.bytes / 1e6;
  return { seconds, code, mb, rssGrowthMb: Math.max(0, peak - rssBefore) / 1e6, readyzMaxMs };
}

function line(name: string, m: Measured): string {
  return `${name.padEnd(48)} ${m.seconds.toFixed(3).padStart(8)} s  ${String(m.code).padEnd(6)} ${m.mb.toFixed(3).padStart(9)} MB answer  +${m.rssGrowthMb.toFixed(0).padStart(5)} MB RSS  readyz max ${m.readyzMaxMs.toFixed(0).padStart(6)} ms`;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { runs: { type: 'string', default: '3' }, timeout: { type: 'string', default: '200' } }, allowPositionals: true });
  const runs = Number(values.runs);
  const timeoutMs = Number(values.timeout) * 1000;
  const cases = CASES.filter((c) => positionals.length === 0 || positionals.some((p) => c.name.includes(p)));
  const dir = mkdtempSync(join(tmpdir(), 'pv-hostile-limits-'));
  installSignalCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const results: string[] = [];
  try {
    for (const c of cases) {
      const all: Measured[] = [];
      for (let i = 0; i < runs; i++) {
        // A fresh server per run: the setup objects and the peak RSS start from the same place.
        const server = await startServer(dir);
        try {
          const m = await measure(server, c, timeoutMs);
          all.push(m);
          process.stderr.write(`${line(c.name, m)}\n`);
        } finally {
          await server.child.stop();
        }
      }
      const med = (f: (m: Measured) => number): number => median(all.map(f)) ?? NaN;
      results.push(line(c.name, { seconds: med((m) => m.seconds), code: all.map((m) => m.code).join('/'), mb: med((m) => m.mb), rssGrowthMb: med((m) => m.rssGrowthMb), readyzMaxMs: med((m) => m.readyzMaxMs) }));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`medians of ${runs} run(s), each on a fresh server:\n${results.join('\n')}\n`);
}

await main();
