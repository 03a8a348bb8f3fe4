/**
 * `pv-controller usage`: which claims are filling up. Lists claims through the kubeconfig and
 * scrapes the controller's /metrics for their volume stats; prints a table (fullest first) or
 * JSON. Flag parsing and wiring only; the view is metrics/usage-table.ts.
 *
 * Exit status: 0; 1 when /metrics could not be read (the claims are still printed, each saying
 * why it has no numbers) or the claims could not be listed; 2 on bad flags.
 */
import { CoreV1Api, type V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { Command, Option } from 'commander';
import { loadKubeConfig } from '../kube-client/kubeconfig.js';
import { DEFAULTS } from '../controller/options.js';
import { flags } from './flags.js';
import { findClusterSource } from './up-data-dir.js';
import { parseExposition } from '../metrics/text-format.js';
import {
  buildUsageRows,
  renderUsageJson,
  renderUsageTable,
  usageByClaim,
  type ClaimSummary,
  type ClaimUsageNumbers,
} from '../metrics/usage-table.js';

export const DEFAULT_METRICS_URL = `http://${DEFAULTS.metricsBindAddress}/metrics`;
const SCRAPE_TIMEOUT_MS = 10_000;

interface UsageFlags {
  kubeconfig?: string;
  dataDir?: string;
  metricsUrl: string;
  output: 'table' | 'json';
  namespace?: string;
}

export function register(program: Command): void {
  program
    .command('usage')
    .description('Show how full each claim\'s volume is (fullest first), from the controller\'s /metrics')
    .addOption(flags.kubeconfig())
    .addOption(flags.upDataDir())
    .option('--metrics-url <url>', 'the controller\'s metrics endpoint', DEFAULT_METRICS_URL)
    .addOption(new Option('-o, --output <format>', 'table | json').choices(['table', 'json']).default('table'))
    .option('-n, --namespace <ns>', 'only claims in this namespace (default: all namespaces)')
    .action(async (_flags: unknown, command: Command) => {
      process.exitCode = await runUsage(command.opts<UsageFlags>());
    });
}

async function runUsage(flags: UsageFlags): Promise<number> {
  const [claims, scrape] = await Promise.all([listClaims(flags), scrapeUsage(flags.metricsUrl)]);
  const rows = buildUsageRows(claims, scrape.usage, scrape.error);
  process.stdout.write(flags.output === 'json' ? renderUsageJson(rows) : renderUsageTable(rows));
  if (scrape.error !== undefined) {
    process.stderr.write(`pv-controller usage: cannot read ${flags.metricsUrl}: ${scrape.error}\n`);
    return 1;
  }
  return 0;
}

async function listClaims(flags: UsageFlags): Promise<ClaimSummary[]> {
  const source = findClusterSource(flags);
  if (source.notice) process.stderr.write(`pv-controller usage: ${source.notice}\n`);
  const api = loadKubeConfig(source.kubeconfig).makeApiClient(CoreV1Api);
  const list = flags.namespace
    ? await api.listNamespacedPersistentVolumeClaim({ namespace: flags.namespace })
    : await api.listPersistentVolumeClaimForAllNamespaces();
  return list.items.map(summarise);
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
