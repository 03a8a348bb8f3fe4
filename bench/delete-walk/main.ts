/**
 * How deleting a volume's tree scales with what a workload put in it: a directory chain of each
 * depth (and one directory of N maximal-length names), deleted through the host-path plugin in a
 * fresh child process per run, which reports wall time, CPU (user + system) and peak RSS. Medians
 * over the runs. Standalone (not a scenario of bench/main.ts: it needs no API server):
 *
 *   npm run build && node dist/bench/delete-walk/main.js [--depths 2000,5000,10000,30000] [--wide 200000] [--runs 3] [--dist DIR]
 *
 * `--dist` points at another build's dist/ (e.g. one of the code before a change) to compare; a
 * run that fails or passes --timeout-s (default 600) is reported as such. Wall time depends on how
 * busy the machine is; CPU time much less.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

interface RunResult {
  ok: boolean;
  wallMs?: number;
  cpuMs?: number;
  maxRssMb?: number;
  error?: string;
}

const CHILD = fileURLToPath(new URL('./child.js', import.meta.url));
const DEFAULT_DIST = fileURLToPath(new URL('../..', import.meta.url));

function runChild(dist: string, kind: string, n: number, timeoutS: number): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CHILD, dist, kind, String(n)], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => stopGroup(child.pid), timeoutS * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve(JSON.parse(out) as RunResult);
      const last = err.trim().split('\n').filter(Boolean).slice(-3).join(' | ');
      resolve({ ok: false, error: `exit ${code ?? signal}: ${last.slice(0, 300)}` });
    });
  });
}

function stopGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGTERM');
    setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    }, 5000).unref();
  } catch {
    // Gone.
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function row(kind: string, n: number, results: RunResult[]): string {
  const ok = results.filter((r) => r.ok);
  const failed = results.length - ok.length;
  const figures =
    ok.length === 0
      ? 'no run finished'
      : `wall ${(median(ok.map((r) => r.wallMs!)) / 1000).toFixed(2)} s, cpu ${(median(ok.map((r) => r.cpuMs!)) / 1000).toFixed(2)} s, peak RSS ${median(ok.map((r) => r.maxRssMb!)).toFixed(0)} MB`;
  const failures = failed > 0 ? `; ${failed} of ${results.length} failed: ${results.find((r) => !r.ok)?.error}` : '';
  return `${kind} ${n.toLocaleString('en')}: ${figures} (median of ${ok.length})${failures}`;
}

const { values } = parseArgs({
  options: {
    depths: { type: 'string', default: '2000,5000,10000,30000' },
    wide: { type: 'string', default: '200000' },
    runs: { type: 'string', default: '3' },
    dist: { type: 'string', default: DEFAULT_DIST },
    'timeout-s': { type: 'string', default: '600' },
  },
});
const cases: Array<[string, number]> = [
  ...values.depths.split(',').filter(Boolean).map((d): [string, number] => ['chain', Number(d)]),
  ...values.wide.split(',').filter(Boolean).map((n): [string, number] => ['wide', Number(n)]),
];
for (const [kind, n] of cases) {
  const results: RunResult[] = [];
  for (let run = 0; run < Number(values.runs); run++) results.push(await runChild(values.dist, kind, n, Number(values['timeout-s'])));
  process.stdout.write(`${row(kind, n, results)}\n`);
}
