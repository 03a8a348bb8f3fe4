/**
 * `pv-controller usage`: which claims are filling up. Lists claims through the kubeconfig and
 * scrapes the controller's /metrics for their volume stats; prints a table (fullest first) or
 * JSON. Flag parsing and wiring only; the view is metrics/usage-table.ts. Beside `npm start`
 * (a cluster `up` runs), /metrics is the address `up` recorded in its data dir, whatever port it got.
 *
 * `--unused [--for 7d]`: which claims no pod has used for that long instead, from their Unused
 * condition (KEP-5541), with their capacity; no /metrics needed. The view is
 * metrics/unused-table.ts.
 *
 * Exit status: 0; 1 when /metrics could not be read (the claims are still printed, each saying
 * why it has no numbers) or the claims could not be listed; 2 on bad flags.
 */
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { DEFAULTS, parseAge } from '../controller/options.js';
import { flags } from './flags.js';
import { findClusterSource, readMetricsAddress, type ClusterSource, type MetricsAddress } from './up-data-dir.js';
import { parseExposition } from '../metrics/text-format.js';
import {
  buildUsageRows,
  renderUsageJson,
  renderUsageTable,
  usageByClaim,
  type ClaimSummary,
  type ClaimUsageNumbers,
} from '../metrics/usage-table.js';
import { buildUnusedRows, renderUnusedJson, renderUnusedTable } from '../metrics/unused-table.js';

export const DEFAULT_METRICS_URL = `http://${DEFAULTS.metricsBindAddress}/metrics`;
const SCRAPE_TIMEOUT_MS = 10_000;

interface UsageFlags {
  kubeconfig?: string;
  dataDir?: string;
  metricsUrl: string;
  output: 'table' | 'json';
  namespace?: string;
  unused?: boolean;
  for: string;
}

export const DEFAULT_UNUSED_FOR = '7d';

function unusedFor(value: string): string {
  try {
    parseAge(value);
  } catch (err) {
    throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
  }
  return value;
}

export function register(program: Command): void {
  program
    .command('usage')
    .description('Show how full each claim\'s volume is (fullest first), from the controller\'s /metrics; with --unused, which claims no pod has used for a while')
    .addOption(flags.kubeconfig())
    .addOption(flags.upDataDir())
    .option('--metrics-url <url>', 'the controller\'s metrics endpoint', DEFAULT_METRICS_URL)
    .addOption(new Option('-o, --output <format>', 'table | json').choices(['table', 'json']).default('table'))
    .option('-n, --namespace <ns>', 'only claims in this namespace (default: all namespaces)')
    .option('--unused', 'list the claims no pod has used for --for instead (from their Unused condition), longest first, with their capacity')
    .addOption(new Option('--for <duration>', 'with --unused: unused for at least this long (7d, 36h, 1d12h, 0 for any)').argParser(unusedFor).default(DEFAULT_UNUSED_FOR))
    .action(async (_flags: unknown, command: Command) => {
      const opts = command.opts<UsageFlags>();
      if (command.getOptionValueSource('for') === 'cli' && !opts.unused) command.error('error: --for needs --unused', { exitCode: 2 });
      process.exitCode = opts.unused ? await runUnused(opts) : await runUsage(opts, command.getOptionValueSource('metricsUrl') === 'cli');
    });
}

async function runUnused(flags: UsageFlags): Promise<number> {
  const source = findClusterSource(flags);
  if (source.notice) process.stderr.write(`pv-controller usage: ${source.notice}\n`);
  const forMs = parseAge(flags.for);
  const claims = (await listClaimObjects(source, flags.namespace)) as unknown as PersistentVolumeClaim[];
  const rows = buildUnusedRows(claims, new Date(), forMs);
  process.stdout.write(flags.output === 'json' ? renderUnusedJson(rows, forMs) : renderUnusedTable(rows, flags.for));
  return 0;
}

async function runUsage(flags: UsageFlags, metricsUrlGiven: boolean): Promise<number> {
  const source = findClusterSource(flags);
  if (source.notice) process.stderr.write(`pv-controller usage: ${source.notice}\n`);
  const metrics = await metricsAddressFor(source, flags.metricsUrl, metricsUrlGiven);
  const [claims, scrape] = await Promise.all([
    listClaims(source, flags.namespace),
    'url' in metrics ? scrapeUsage(metrics.url) : Promise.resolve({ usage: new Map<string, ClaimUsageNumbers>(), error: metrics.missing }),
  ]);
  const rows = buildUsageRows(claims, scrape.usage, scrape.error);
  process.stdout.write(flags.output === 'json' ? renderUsageJson(rows) : renderUsageTable(rows));
  if (scrape.error !== undefined) {
    process.stderr.write(`pv-controller usage: cannot read ${'url' in metrics ? metrics.url : 'the controller\'s /metrics'}: ${scrape.error}\n`);
    return 1;
  }
  return 0;
}

/**
 * `--metrics-url` when given; else, for a cluster `up` runs, the address that `up` recorded in its
 * data dir (never the default port, which may be another process's); else the default.
 */
async function metricsAddressFor(source: ClusterSource, flagUrl: string, given: boolean): Promise<MetricsAddress> {
  if (given || source.dataDir === undefined) return { url: flagUrl };
  return readMetricsAddress(source.dataDir);
}

async function listClaimObjects(source: ClusterSource, namespace: string | undefined): Promise<V1PersistentVolumeClaim[]> {
  // client-node loads only now, never for --help.
  const [{ CoreV1Api }, { loadKubeConfig }] = await Promise.all([import('@kubernetes/client-node'), import('../kube-client/kubeconfig.js')]);
  const api = loadKubeConfig(source.kubeconfig).makeApiClient(CoreV1Api);
  const list = namespace
    ? await api.listNamespacedPersistentVolumeClaim({ namespace })
    : await api.listPersistentVolumeClaimForAllNamespaces();
  return list.items;
}

async function listClaims(source: ClusterSource, namespace: string | undefined): Promise<ClaimSummary[]> {
  return (await listClaimObjects(source, namespace)).map(summarise);
}

function summarise(pvc: V1PersistentVolumeClaim): ClaimSummary {
  const summary: ClaimSummary = {
    namespace: pvc.metadata?.namespace ?? '',
    name: pvc.metadata?.name ?? '',
    phase: pvc.status?.phase ?? 'Pending',
  };
  if (pvc.spec?.volumeName) summary.volumeName = pvc.spec.volumeName;
  return summary;
}

/** The volume stats by claim, or why they could not be read. */
async function scrapeUsage(url: string): Promise<{ usage: Map<string, ClaimUsageNumbers>; error?: string }> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS), headers: { Accept: 'text/plain' } });
    if (!res.ok) return { usage: new Map(), error: `HTTP ${res.status} ${res.statusText}` };
    return { usage: usageByClaim(parseExposition(await res.text()).samples) };
  } catch (err) {
    return { usage: new Map(), error: describeFetchError(err) };
  }
}

function describeFetchError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}
