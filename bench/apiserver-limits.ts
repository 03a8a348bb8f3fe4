/**
 * Measures the embedded API server's three costs from issue 24 (items 5–7), each against a fresh
 * `pv-controller apiserver --storage memory` child process:
 *   watches N       RSS of the server before and after N watches that never read a ~16.5 MB
 *                   collection (and how long /readyz takes meanwhile);
 *   metrics         /metrics' size before and after 2,000 GETs with distinct dryRun values;
 *   gc N            seconds for 100 PATCHes of owned objects while N owners wait on
 *                   foreground deletion (each held by a blocking dependent with a finalizer).
 * Usage: node dist/bench/apiserver-limits.js <watches N|metrics|gc N> [--cli dist/src/cli/main.js] [--runs 3]
 * Prints one JSON line per run and the median. `--cli` lets the same script measure another build.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

interface Server {
  url: string;
  token: string;
  ca: string;
  child: ChildProcess;
  dir: string;
}

async function startServer(cli: string): Promise<Server> {
  const dir = await mkdtemp(join(tmpdir(), 'pvc-limits-'));
  const child = spawn(process.execPath, [cli, 'apiserver', '--data-dir', dir, '--listen', '127.0.0.1:0', '--storage', 'memory', '-v', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /listening on (https:\/\/[0-9.:]+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code})`)));
  });
  child.stdout!.resume();
  return { url, token: (await readFile(join(dir, 'token'), 'utf8')).trim(), ca: await readFile(join(dir, 'pki', 'ca.crt'), 'utf8'), child, dir };
}

async function stopServer(s: Server): Promise<void> {
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  s.child.kill('SIGTERM');
  await exited;
  await rm(s.dir, { recursive: true, force: true });
}

function open(s: Server, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<IncomingMessage> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { Authorization: `Bearer ${s.token}`, Accept: 'application/json' };
  if (payload !== undefined) headers['Content-Type'] = contentType;
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, s.url), { method, headers, ca: s.ca }, resolve);
    req.on('error', reject);
    req.end(payload);
  });
}

async function call(s: Server, method: string, path: string, body?: unknown, contentType?: string): Promise<{ status: number; text: string }> {
  const res = await open(s, method, path, body, contentType);
  const chunks: Buffer[] = [];
  for await (const c of res as AsyncIterable<Buffer>) chunks.push(c);
  return { status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() };
}

async function rssMB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const lease = (name: string, extra: Record<string, unknown> = {}): unknown => ({ metadata: { name, ...extra }, spec: {} });

async function watches(s: Server, n: number): Promise<Record<string, number>> {
  const filler = 'x'.repeat(100_000);
  for (let i = 0; i < 165; i++) await call(s, 'POST', LEASES, lease(`l${i}`, { annotations: { filler } }));
  const before = await rssMB(s.child.pid!);
  const streams = await Promise.all(Array.from({ length: n }, () => open(s, 'GET', `${LEASES}?watch=true`)));
  for (const r of streams) r.pause();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const t0 = performance.now();
  await call(s, 'GET', '/readyz');
  const readyzMs = performance.now() - t0;
  const after = await rssMB(s.child.pid!);
  for (const r of streams) r.destroy();
  return { rssBeforeMB: before, rssAfterMB: after, readyzMs };
}

async function metrics(s: Server): Promise<Record<string, number>> {
  await call(s, 'GET', '/api/v1/namespaces/default?dryRun=first');
  await call(s, 'GET', '/metrics'); // the scrape is counted from the second on
  const before = (await call(s, 'GET', '/metrics')).text.length;
  for (let i = 0; i < 2000; i++) await call(s, 'GET', `/api/v1/namespaces/default?dryRun=v${i}`);
  const after = (await call(s, 'GET', '/metrics')).text.length;
  return { metricsBeforeKB: before / 1024, metricsAfterKB: after / 1024 };
}

async function gc(s: Server, waiting: number): Promise<Record<string, number>> {
  const uid = async (res: Promise<{ text: string }>): Promise<string> => (JSON.parse((await res).text) as { metadata: { uid: string } }).metadata.uid;
  const ref = (name: string, u: string, block: boolean): unknown => [{ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name, uid: u, blockOwnerDeletion: block }];
  const live = await uid(call(s, 'POST', LEASES, lease('live')));
  for (let i = 0; i < 100; i++) await call(s, 'POST', LEASES, lease(`owned-${i}`, { ownerReferences: ref('live', live, false) }));
  for (let i = 0; i < waiting; i++) {
    const o = await uid(call(s, 'POST', LEASES, lease(`owner-${i}`)));
    await call(s, 'POST', LEASES, lease(`held-${i}`, { ownerReferences: ref(`owner-${i}`, o, true), finalizers: ['example.com/hold'] }));
    await call(s, 'DELETE', `${LEASES}/owner-${i}?propagationPolicy=Foreground`);
  }
  const t0 = performance.now();
  for (let i = 0; i < 100; i++) {
    const r = await call(s, 'PATCH', `${LEASES}/owned-${i}`, { spec: { holderIdentity: `h${i}` } }, 'application/merge-patch+json');
    if (r.status !== 200) throw new Error(`PATCH answered ${r.status}`);
  }
  return { patchesSeconds: (performance.now() - t0) / 1000 };
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { cli: { type: 'string', default: 'dist/src/cli/main.js' }, runs: { type: 'string', default: '3' } } });
  const [what, arg] = positionals;
  const n = Number(arg ?? '0');
  const rows: Record<string, number>[] = [];
  for (let run = 0; run < Number(values.runs); run++) {
    const s = await startServer(values.cli);
    try {
      const row = what === 'watches' ? await watches(s, n) : what === 'metrics' ? await metrics(s) : what === 'gc' ? await gc(s, n) : undefined;
      if (row === undefined) throw new Error('usage: apiserver-limits <watches N|metrics|gc N> [--cli PATH] [--runs N]');
      console.log(JSON.stringify(row));
      rows.push(row);
    } finally {
      await stopServer(s);
    }
  }
  const medians = Object.fromEntries(Object.keys(rows[0]).map((k) => [k, Number(median(rows.map((r) => r[k])).toFixed(2))]));
  console.log(JSON.stringify({ what, n, runs: rows.length, median: medians }));
}

await main();
