/** `npm run bench -- [flags]`: flag parsing only. */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { PROVISIONER_KINDS, type ProvisionerKind } from './csi/binaries.js';
import { benchRoot } from './paths.js';
import type { BenchOptions, StorageKind } from './scenario.js';

function parseSizes(value: string): number[] {
  const sizes = value.split(',').map((s) => Number(s.trim()));
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new InvalidArgumentError('expected positive integers, comma-separated (e.g. 1000,10000)');
  }
  return sizes;
}

function parseStorage(value: string): StorageKind[] {
  if (value === 'both') return ['memory', 'sqlite'];
  if (value === 'memory' || value === 'sqlite') return [value];
  throw new InvalidArgumentError('expected memory, sqlite or both');
}

/** A second checkout's compiled CLI: `<dir>/dist/src/cli/main.js`, which must exist (npm run build there). */
function parseBaseline(value: string): string {
  const cli = join(resolve(value), 'dist', 'src', 'cli', 'main.js');
  if (!existsSync(cli)) throw new InvalidArgumentError(`no compiled CLI at ${cli}: run npm run build in that checkout`);
  return cli;
}

function parseProvisioners(value: string): ProvisionerKind[] {
  if (value === 'both') return [...PROVISIONER_KINDS];
  const kind = PROVISIONER_KINDS.find((k) => k === value);
  if (!kind) throw new InvalidArgumentError(`expected ${PROVISIONER_KINDS.join(', ')} or both`);
  return [kind];
}

function parsePositive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

export interface ParsedCommand {
  /** Everything but the scratch directory, which main creates once it knows it will run. */
  options: Omit<BenchOptions, 'workDir'>;
  list: boolean;
}

/** Parses argv (process.argv form). Throws CommanderError on bad flags. */
export function parseBenchArgs(argv: string[], scenarioNames: string[]): ParsedCommand {
  const program = new Command('bench')
    .description('pv-controller benchmarks: throughput against the floor the API itself sets')
    .option('--quick', 'one-minute smoke run: small sizes, 3 repetitions', false)
    .option('--scenario <names>', `comma-separated: ${scenarioNames.join(', ')} (default: all)`)
    .option('--n <sizes>', 'sizes for bind, comma-separated (default 1000,10000; quick 100); provision uses the smallest', parseSizes)
    .option('--provision-n <sizes>', 'claim counts for provision, comma-separated (default: the smallest --n, else 1000; quick 50)', parseSizes)
    .option('--storage <kind>', 'API server storage: memory, sqlite or both', parseStorage, ['memory', 'sqlite'])
    .option('--kubeconfig <file>', 'run the client-side scenarios against this cluster')
    .option('--real-cluster', 'side by side with kube-controller-manager on a kube-apiserver + etcd the bench starts (npm run cluster:build first)', false)
    .option('--repetitions <n>', 'repetitions per measurement (default 5, bind/provision 3; quick 3, bind/provision 1)', parsePositive)
    .option('--writes <n>', 'measured writes per loop in the apiserver scenario (default 10000; quick 500)', parsePositive)
    .option('--provisioner <kind>', `csi-*: the provisioner under test: ${PROVISIONER_KINDS.join(', ')} or both`, parseProvisioners, [...PROVISIONER_KINDS])
    .option('--rounds <n>', 'csi-leak: rounds per provisioner (default 20; quick 3)', parsePositive)
    .option('--concurrency <n>', 'in-flight requests per client loop and controller workers', parsePositive, 16)
    .option('--baseline <checkout>', 'another built checkout (e.g. a git worktree of an older commit): apiserver and bind measure its server beside this one, same run', parseBaseline)
    .option('--no-floor', 'bind: skip the write floor (for sizes that take too long to run twice)')
    .option('--cpu-prof', 'pass --cpu-prof to the child processes (profiles in the results dir)', false)
    .option('--results-dir <dir>', 'where JSON records go', join(benchRoot(), 'results'))
    .option('--list', 'list the scenarios and exit', false)
    .exitOverride()
    .configureOutput({ writeOut: (s) => process.stderr.write(s) });
  program.parse(argv);
  if (program.opts<{ realCluster: boolean; kubeconfig?: string }>().realCluster && program.opts().kubeconfig) {
    program.error('error: --real-cluster starts its own control plane; --kubeconfig names an existing cluster: give one of them');
  }
  const o = program.opts<{
    quick: boolean;
    scenario?: string;
    n?: number[];
    provisionN?: number[];
    storage: StorageKind[];
    kubeconfig?: string;
    realCluster: boolean;
    repetitions?: number;
    writes?: number;
    provisioner: ProvisionerKind[];
    rounds?: number;
    concurrency: number;
    cpuProf: boolean;
    floor: boolean;
    baseline?: string;
    resultsDir: string;
    list: boolean;
  }>();
  const options: Omit<BenchOptions, 'workDir'> = {
    quick: o.quick,
    scenarios: o.scenario ? o.scenario.split(',').map((s) => s.trim()).filter(Boolean) : [],
    sizes: o.n,
    provisionSizes: o.provisionN,
    storages: o.storage,
    kubeconfig: o.kubeconfig ? resolve(o.kubeconfig) : undefined,
    realCluster: o.realCluster,
    cpuProf: o.cpuProf,
    noFloor: !o.floor,
    baselineCli: o.baseline,
    repetitions: o.repetitions ?? (o.quick ? 3 : 5),
    repetitionsGiven: o.repetitions !== undefined,
    writes: o.writes,
    provisioners: o.provisioner,
    rounds: o.rounds,
    concurrency: o.concurrency,
    resultsDir: resolve(o.resultsDir),
  };
  return { options, list: o.list };
}
