/**
 * `npm run chaos -- --claims N --seed S [--kubeconfig FILE] [--duration 10m] ...`: one chaos run
 * (see run.ts and docs/chaos.md). Exits 0 with no violations, 1 with any (after printing the
 * seed, the replay command and where the history is), 2 on a bad flag.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseDuration } from '../../src/controller/duration.js';
import { liveProcesses } from '../cluster/processes.js';
import { csiDriverUnavailable, defaultCsiDriver, type CsiDriverKind } from './csi.js';
import { killGroup } from './processes.js';
import { cleanUp, runChaos, type ChaosOptions } from './run.js';
import { summaryLines } from './report.js';

const USAGE = `usage: npm run chaos -- [--claims N] [--seed S] [--kubeconfig FILE] [--duration D] [--dir DIR]
                        [--workers N] [--rate R] [--api-fault-rate P] [--csi-driver K] [--settle-timeout D]
                        [--snapshots] [--out FILE] [--keep]

  --claims N            claims the workload creates (default 200)
  --seed S              seed of every random choice (default: drawn, and printed)
  --kubeconfig FILE     run against this control plane (admin credentials) instead of the embedded
                        API server; the API server is then never killed
  --controller-kubeconfig FILE
                        with --kubeconfig: the controllers' own credentials (e.g. the
                        ServiceAccount of deploy/rbac.yaml; default: --kubeconfig's)
  --duration D          stop the workload after D even if not all claims were made (default 30m)
  --dir DIR             working directory (default: a new one under the temp dir; kept)
  --workers N           concurrent workload workers (default 3)
  --rate R              workload operations per second, all workers together (default 6)
  --api-fault-rate P    share of controller requests that suffer a fault outside bursts (default 0.05)
  --csi-driver K        the CSI driver behind the CSI fault proxy: mock (Kubernetes' CSI mock, the
                        default where npm run csi:build built it), fake (our fake driver as a
                        process, the default elsewhere) or none (no CSI class)
  --snapshots           with a CSI driver: the workload also takes VolumeSnapshots of its CSI claims,
                        deletes them and restores claims from them; csi-snapshots is checked (needs
                        a server serving snapshot.storage.k8s.io/v1 and controllers that snapshot)
  --settle-timeout D    how long the system may take to settle after the chaos (default 3m)
  --out FILE            the JSON record (default DIR/chaos-<seed>.json; the history beside it)
  --keep                keep DIR after a clean run (only with --out; otherwise DIR is always kept)
`;

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got "${text}"`);
  return n;
}

async function parse(argv: string[]): Promise<ChaosOptions> {
  const { values } = parseArgs({
    args: argv,
    options: {
      claims: { type: 'string' },
      seed: { type: 'string' },
      kubeconfig: { type: 'string' },
      'controller-kubeconfig': { type: 'string' },
      duration: { type: 'string', default: '30m' },
      dir: { type: 'string' },
      workers: { type: 'string' },
      rate: { type: 'string' },
      'api-fault-rate': { type: 'string', default: '0.05' },
      'csi-driver': { type: 'string' },
      'settle-timeout': { type: 'string', default: '3m' },
      out: { type: 'string' },
      keep: { type: 'boolean', default: false },
      snapshots: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const rate = Number(values['api-fault-rate']);
  if (!(rate >= 0 && rate <= 1)) throw new Error(`--api-fault-rate must be between 0 and 1, got "${values['api-fault-rate']}"`);
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed must be a non-negative integer, got "${values.seed}"`);
  const csiDriver = parseCsiDriver(values['csi-driver']);
  if (values.snapshots && csiDriver === 'none') throw new Error('--snapshots needs a CSI driver (--csi-driver mock or fake)');
  return {
    csiDriver,
    snapshots: values.snapshots,
    claims: positive('claims', values.claims, 200),
    seed,
    ...(values.kubeconfig ? { kubeconfig: resolve(values.kubeconfig) } : {}),
    ...(values['controller-kubeconfig'] ? { controllerKubeconfig: resolve(values['controller-kubeconfig']) } : {}),
    durationMs: parseDuration(values.duration),
    dir: values.dir ? resolve(values.dir) : await mkdtemp(join(tmpdir(), 'pv-chaos-')),
    workers: positive('workers', values.workers, 3),
    opsPerSecond: positive('rate', values.rate, 6),
    apiFaultRate: rate,
    settleTimeoutMs: parseDuration(values['settle-timeout']),
    ...(values.out ? { out: resolve(values.out) } : {}),
    keep: values.keep,
    log: (line) => process.stdout.write(`${line}\n`),
  };
}

function parseCsiDriver(text: string | undefined): CsiDriverKind | 'none' {
  if (text === undefined) return defaultCsiDriver();
  if (text !== 'mock' && text !== 'fake' && text !== 'none') throw new Error(`--csi-driver must be mock, fake or none, got "${text}"`);
  const unavailable = text === 'none' ? undefined : csiDriverUnavailable(text);
  if (unavailable) throw new Error(`--csi-driver ${text}: ${unavailable}`);
  return text;
}

function replayCommand(o: ChaosOptions): string {
  const args = [`--claims ${o.claims}`, `--seed ${o.seed}`, `--workers ${o.workers}`, `--rate ${o.opsPerSecond}`, `--api-fault-rate ${o.apiFaultRate}`, `--csi-driver ${o.csiDriver}`];
  if (o.kubeconfig) args.push(`--kubeconfig ${o.kubeconfig}`);
  if (o.controllerKubeconfig) args.push(`--controller-kubeconfig ${o.controllerKubeconfig}`);
  return `npm run chaos -- ${args.join(' ')}`;
}

async function main(): Promise<void> {
  let options: ChaosOptions;
  try {
    options = await parse(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`chaos: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
  // Every process of the run is in its own process group: an interrupted run must not leave them.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const proc of liveProcesses()) void killGroup(proc);
      process.exit(130);
    });
  }
  options.log(`chaos: seed ${options.seed}, ${options.claims} claims, working in ${options.dir}`);
  const record = await runChaos(options);
  for (const line of summaryLines(record, replayCommand(options))) options.log(line);
  await cleanUp(options, record);
  process.exit(record.invariants.violations.length === 0 ? 0 : 1);
}

main().catch((err: unknown) => {
  process.stderr.write(`chaos: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
