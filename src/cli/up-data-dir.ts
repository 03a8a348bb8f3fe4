/**
 * Where the client commands (`usage`, `orphans`) find the cluster when no --kubeconfig is given:
 * `--data-dir DIR` (an `up` data dir: DIR/kubeconfig, DIR/volumes), then $KUBECONFIG, then the
 * data dir `npm start` uses in the current directory (.pv-controller), then client-node's default
 * chain (~/.kube/config, in-cluster). Each command says on stderr which one it chose, so a
 * person never wonders which cluster a report is about.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
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
