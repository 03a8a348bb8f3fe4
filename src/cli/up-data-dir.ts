/**
 * Where the client commands (`usage`, `orphans`) find the cluster when no --kubeconfig is given:
 * `--data-dir DIR` (an `up` data dir: DIR/kubeconfig, DIR/volumes), then $KUBECONFIG, then the
 * data dir `npm start` uses in the current directory (.pv-controller), then client-node's default
 * chain (~/.kube/config, in-cluster). Each command says on stderr which one it chose, so a
 * person never wonders which cluster a report is about.
 */
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { parse } from 'yaml';
import { join, relative, resolve } from 'node:path';

/** The data dir `npm start` passes to `up`, relative to the directory it runs in. */
export const NPM_START_DATA_DIR = '.pv-controller';

export interface ClusterSource {
  /** The kubeconfig file to load; undefined: client-node's default chain. */
  kubeconfig?: string;
  /** The `up` data dir in use, when the cluster is one `up` runs. */
  dataDir?: string;
  /** One line for stderr naming the choice; undefined when the user named the file. */
  notice?: string;
}

export interface ClusterSourceFlags {
  kubeconfig?: string;
  dataDir?: string;
}

function shown(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === '' || rel.startsWith('..') ? path : rel;
}

export function findClusterSource(
  flags: ClusterSourceFlags,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): ClusterSource {
  if (flags.kubeconfig !== undefined) return { kubeconfig: flags.kubeconfig };
  if (flags.dataDir !== undefined) {
    const dataDir = resolve(cwd, flags.dataDir);
    return { dataDir, kubeconfig: join(dataDir, 'kubeconfig') };
  }
  if (env.KUBECONFIG) return { notice: `using $KUBECONFIG (${env.KUBECONFIG})` };
  const npmStart = resolve(cwd, NPM_START_DATA_DIR);
  const kubeconfig = join(npmStart, 'kubeconfig');
  if (existsSync(kubeconfig)) {
    return {
      dataDir: npmStart,
      kubeconfig,
      notice: `using ${shown(kubeconfig, cwd)} (the data dir of \`npm start\` here; --kubeconfig or --data-dir to choose another)`,
    };
  }
  return { notice: 'using the default kubeconfig (~/.kube/config, or in-cluster); --kubeconfig or --data-dir to choose another' };
}

/** The file in an `up` data dir that names the /metrics URL that `up` serves, while it runs. */
export const METRICS_ADDRESS_FILE = 'metrics-address.json';

interface MetricsAddressRecord {
  url: string;
  pid: number;
}

/**
 * Records the /metrics URL `up` bound (whatever port it got, `:0` included) with its pid, so
 * `usage` beside it reads this process's metrics and never whatever else listens on the default
 * port. Written after binding; removed on a clean stop and before every start.
 */
export async function writeMetricsAddress(dataDir: string, url: string, pid: number = process.pid): Promise<void> {
  const record: MetricsAddressRecord = { url, pid };
  await writeFile(join(dataDir, METRICS_ADDRESS_FILE), `${JSON.stringify(record)}\n`, { mode: 0o600 });
}

export async function removeMetricsAddress(dataDir: string): Promise<void> {
  await rm(join(dataDir, METRICS_ADDRESS_FILE), { force: true });
}

/** What an `up` data dir says about its /metrics: the URL, or why there is none. */
export type MetricsAddress = { url: string } | { missing: string };

/**
 * The /metrics URL of the `up` running on `dataDir`: read from its record, if the process that
 * wrote it still lives (a crashed `up` leaves a record whose port another process may hold now).
 */
export async function readMetricsAddress(dataDir: string, alive: (pid: number) => boolean = processAlive): Promise<MetricsAddress> {
  let record: Partial<MetricsAddressRecord>;
  try {
    record = JSON.parse(await readFile(join(dataDir, METRICS_ADDRESS_FILE), 'utf8')) as Partial<MetricsAddressRecord>;
  } catch {
    return { missing: `no /metrics is served by \`up\` in ${dataDir} (not running, or started with --metrics-bind-address 0, or its port was taken)` };
  }
  if (typeof record.url !== 'string' || !/^http:\/\/[^/]+\/metrics$/.test(record.url) || typeof record.pid !== 'number') {
    return { missing: `${join(dataDir, METRICS_ADDRESS_FILE)} is not a metrics address record` };
  }
  if (!alive(record.pid)) return { missing: `the \`up\` (pid ${record.pid}) that served ${record.url} for ${dataDir} is gone` };
  return { url: record.url };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The host-path root `up` keeps the default class's volumes under, in its data dir. */
export function upVolumesRoot(dataDir: string): string {
  return join(dataDir, 'volumes');
}

/**
 * The loopback port `up` served on last time (from DIR/kubeconfig), when it is free now: a
 * restart keeps the kubeconfig every terminal already uses. Undefined when there is no earlier
 * kubeconfig, it names no port, or the port is taken (then a fresh free port is picked).
 */
export async function previousFreePort(dataDir: string, host: string): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(join(dataDir, 'kubeconfig'), 'utf8');
  } catch {
    return undefined;
  }
  const port = serverPort(text);
  if (!(port > 0 && port < 65536)) return undefined;
  return (await portIsFree(host, port)) ? port : undefined;
}

/** The port of the first cluster's server URL in a kubeconfig's text; NaN when there is none. */
function serverPort(kubeconfigText: string): number {
  try {
    const doc = parse(kubeconfigText) as { clusters?: Array<{ cluster?: { server?: unknown } }> } | null;
    const server = doc?.clusters?.[0]?.cluster?.server;
    return typeof server === 'string' ? Number(new URL(server).port) : NaN;
  } catch {
    return NaN;
  }
}

function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => done(true)));
  });
}
