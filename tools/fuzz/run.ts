/**
 * `npm run fuzz -- --time S [--target NAME]...`: runs every fuzz target of test/fuzz/targets/
 * under Jazzer.js (coverage-guided, libFuzzer) for S seconds each, starting from the seeds in
 * test/fuzz/corpus/<target>/ and the inputs earlier runs found (kept in the runtime cache).
 * An input that breaks a law, throws, or runs past the per-input timeout is copied into
 * test/fuzz/corpus/<target>/, where test/fuzz/regressions.test.ts replays it from then on.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FUZZ_TARGETS } from '../../test/fuzz/targets/index.js';
import { fuzzNodeLauncher, runtimeDir, type NodeLauncher } from './glibc-runtime.js';

const ROOT = resolve(new URL('../../..', import.meta.url).pathname);
const TARGETS_DIR = join(ROOT, 'dist', 'test', 'fuzz', 'targets');
const SEEDS = join(ROOT, 'test', 'fuzz', 'corpus');
const JSON_DICT = join(ROOT, 'test', 'fuzz', 'json.dict');
const JSON_TARGETS = new Set(['objectBody', 'jsonPatch', 'mergePatch', 'strategicMergePatch', 'longLists']);
/** Per input: a parser that takes longer than this on a few KiB is a hang. */
const INPUT_TIMEOUT_MS = 5_000;
/** Past its time by this much a run is stopped by process group and counted as a hang. */
const GRACE_MS = 60_000;

const USAGE = `usage: npm run fuzz -- [--time SECONDS] [--target NAME]...

  --time SECONDS   how long each target runs (default 10)
  --target NAME    only this target (repeatable); the targets are those of test/fuzz/targets/index.ts
`;

interface TargetResult {
  target: string;
  seconds: number;
  runs: number;
  coverage: number;
  corpus: number;
  findings: string[];
  verdict: 'ok' | 'finding' | 'hang';
}

function lastMatch(text: string, re: RegExp): number {
  const all = [...text.matchAll(re)];
  return all.length > 0 ? Number(all[all.length - 1][1]) : 0;
}

/** Copies crash, timeout and out-of-memory inputs into the target's regression corpus. */
function keepFindings(target: string, artifacts: string): string[] {
  const kept: string[] = [];
  for (const file of readdirSync(artifacts)) {
    const destination = join(SEEDS, target, file);
    copyFileSync(join(artifacts, file), destination);
    kept.push(destination.slice(ROOT.length + 1));
  }
  return kept;
}

function fuzzArgs(target: string, seconds: number, work: string, artifacts: string): string[] {
  const libFuzzer = [`-max_total_time=${seconds}`, `-artifact_prefix=${artifacts}/`, '-max_len=8192', '-print_final_stats=1'];
  if (JSON_TARGETS.has(target)) libFuzzer.push(`-dict=${JSON_DICT}`);
  return [
    join(ROOT, 'node_modules', '@jazzer.js', 'core', 'dist', 'cli.js'), join(TARGETS_DIR, FUZZ_TARGETS[target]), work, join(SEEDS, target),
    '-f', target, '--sync', '--timeout', String(INPUT_TIMEOUT_MS), '-i', `${join(ROOT, 'dist', 'src')}/`,
    '--', ...libFuzzer,
  ];
}

async function runTarget(launcher: NodeLauncher, target: string, seconds: number): Promise<TargetResult> {
  const work = join(runtimeDir(), 'corpus', target);
  mkdirSync(work, { recursive: true });
  const artifacts = mkdtempSync(join(tmpdir(), `fuzz-${target}-`));
  const started = Date.now();
  const child = spawn(launcher.command, [...launcher.prefixArgs, ...fuzzArgs(target, seconds, work, artifacts)], {
    cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  let hung = false;
  const guard = setTimeout(() => {
    hung = true;
    process.kill(-child.pid!, 'SIGKILL');
  }, seconds * 1000 + GRACE_MS);
  const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
  clearTimeout(guard);
  const findings = keepFindings(target, artifacts);
  rmSync(artifacts, { recursive: true, force: true });
  if (code !== 0 && findings.length === 0 && !hung) process.stderr.write(output.slice(-4000));
  for (const line of output.split('\n').filter((l) => /Uncaught Exception|LawViolation|ERROR: libFuzzer|Test unit written/.test(l))) {
    process.stderr.write(`  ${target}: ${line}\n`);
  }
  return {
    target,
    seconds: (Date.now() - started) / 1000,
    runs: Math.max(lastMatch(output, /Done (\d+) runs/g), lastMatch(output, /stat::number_of_executed_units: (\d+)/g)),
    coverage: lastMatch(output, /cov: (\d+)/g),
    corpus: lastMatch(output, /corp: (\d+)\//g),
    findings,
    verdict: hung ? 'hang' : code === 0 && findings.length === 0 ? 'ok' : 'finding',
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { time: { type: 'string', default: '10' }, target: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help) return void process.stdout.write(USAGE);
  const seconds = Number(values.time);
  if (!Number.isInteger(seconds) || seconds < 1) {
    process.stderr.write(`fuzz: --time must be a whole number of seconds\n${USAGE}`);
    process.exit(2);
  }
  const targets = values.target ?? Object.keys(FUZZ_TARGETS);
  const unknown = targets.filter((t) => !Object.hasOwn(FUZZ_TARGETS, t) || !existsSync(join(SEEDS, t)));
  if (unknown.length > 0) {
    process.stderr.write(`fuzz: unknown target(s) ${unknown.join(', ')}; known: ${Object.keys(FUZZ_TARGETS).join(', ')}\n`);
    process.exit(2);
  }
  const launcher = fuzzNodeLauncher();
  process.stdout.write(`fuzz: ${targets.length} target(s), ${seconds} s each, ${launcher.description}\n`);
  const results: TargetResult[] = [];
  for (const target of targets) {
    const result = await runTarget(launcher, target, seconds);
    results.push(result);
    process.stdout.write(`fuzz: ${target.padEnd(20)} ${result.verdict.padEnd(7)} ${result.seconds.toFixed(1).padStart(6)} s ` +
      `${String(result.runs).padStart(9)} runs  cov ${result.coverage}  corpus ${result.corpus}${result.findings.map((f) => `\n      saved ${f}`).join('')}\n`);
  }
  const bad = results.filter((r) => r.verdict !== 'ok');
  process.stdout.write(`fuzz: ${results.length - bad.length}/${results.length} targets without findings\n`);
  if (bad.length > 0) process.exit(1);
}

await main();
