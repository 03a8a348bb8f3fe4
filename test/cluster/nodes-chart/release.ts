/**
 * The chart's release on real nodes: helm with its state in the test's directory, the values a
 * cluster of network-less nodes on one machine needs (the project's image loaded into
 * containerd, the host's network, kube-apiserver at 127.0.0.1, each node's volumes apart), and
 * the previous chart version taken from git for `helm upgrade`.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, findHelm } from '../../../tools/cluster/binaries.js';
import { freePort } from '../../../tools/cluster/processes.js';
import { CHART_DIR, NODE_AGENT_VALUES } from '../../../tools/chart/manifests.js';
import { CONTROLLER_IMAGE } from './real-nodes.js';

const run = promisify(execFile);

export const NAMESPACE = 'kube-system';
export const RELEASE = 'pv-controller';
/** The chart's sized class (ci/node-agent-values.yaml) and a plain-directory class added here. */
export const SIZED_CLASS = 'pv-local';
export const PLAIN_CLASS = 'pv-local-dir';

/** helm with its cache, config and data in `work`, never the user's. */
export async function runHelm(work: string, kubeconfig: string, args: string[]): Promise<string> {
  const env = { ...process.env, HELM_CACHE_HOME: join(work, 'helm-cache'), HELM_CONFIG_HOME: join(work, 'helm-config'), HELM_DATA_HOME: join(work, 'helm-data') };
  try {
    const { stdout } = await run(findHelm() ?? 'helm', [...args, '--kubeconfig', kubeconfig], { env, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`helm ${args.join(' ')} failed:\n${e.stderr ?? ''}${e.stdout ?? ''}`);
  }
}

export interface ReleasePorts {
  controller: number;
  agent: number;
}

export async function releasePorts(): Promise<ReleasePorts> {
  const controller = await freePort();
  let agent = await freePort();
  while (agent === controller) agent = await freePort();
  return { controller, agent };
}

export interface NodeValues {
  apiServerPort: number;
  /** The node agents' root on the machine (each node's volumes in <root>/<node> with perNode). */
  root: string;
  ports: ReleasePorts;
  replicas: number;
  /** <root>/<node name> per node: for several nodes on this one machine. */
  perNode: boolean;
  /** `--node-gone-delay` of the controller. */
  nodeGoneDelay?: string;
  /** For a chart before hostNetwork, apiServer and rootPerNode (onHostNetwork did their part). */
  previous?: boolean;
}

/** A values file for the chart on these nodes. */
export async function writeNodeValues(work: string, v: NodeValues): Promise<string> {
  const network = v.previous ? {} : { hostNetwork: true, apiServer: { host: '127.0.0.1', port: v.apiServerPort } };
  const values = {
    image: { ...CONTROLLER_IMAGE, pullPolicy: 'Never' },
    ...network,
    replicas: v.replicas,
    metrics: { port: v.ports.controller },
    extraArgs: v.nodeGoneDelay ? [`--node-gone-delay=${v.nodeGoneDelay}`] : [],
    nodeAgent: {
      enabled: true,
      root: v.root,
      ...(v.previous ? {} : { rootPerNode: v.perNode, hostNetwork: true }),
      metricsPort: v.ports.agent,
      capacityPublishPeriod: '2s',
    },
    storageClasses: [...(await sizedClasses()), { name: PLAIN_CLASS, plugin: 'host-path-node', reclaimPolicy: 'Delete', parameters: {} }],
  };
  const path = join(work, v.previous ? 'previous-values.json' : 'node-values.json');
  await writeFile(path, JSON.stringify(values, null, 2));
  return path;
}

/** The storage classes of ci/node-agent-values.yaml (the sized class), so the suite tests what users copy. */
async function sizedClasses(): Promise<unknown[]> {
  const { parse } = await import('yaml');
  const doc = parse(await readFile(join(CHART_DIR, NODE_AGENT_VALUES), 'utf8')) as { storageClasses: unknown[] };
  return doc.storageClasses;
}

export async function installChart(work: string, kubeconfig: string, chart: string, valuesFile: string, namespace = NAMESPACE): Promise<void> {
  await runHelm(work, kubeconfig, ['install', RELEASE, chart, '--namespace', namespace, '-f', valuesFile]);
}

export async function upgradeChart(work: string, kubeconfig: string, chart: string, valuesFile: string, namespace = NAMESPACE): Promise<void> {
  await runHelm(work, kubeconfig, ['upgrade', RELEASE, chart, '--namespace', namespace, '-f', valuesFile]);
}

async function git(args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' });
  return stdout.trim();
}

/**
 * The previous chart version: PV_PREVIOUS_CHART_REF; else the newest `v*` tag; else the newest
 * release docs/release.md names for tagging (the first releases were reconstructed after the fact
 * and are untagged: `git tag -a v0.5.0 4d2f865 ...`). Returns the ref and how it was chosen.
 */
export async function previousChartRef(): Promise<{ ref: string; why: string }> {
  const forced = process.env.PV_PREVIOUS_CHART_REF;
  if (forced) return { ref: forced, why: 'PV_PREVIOUS_CHART_REF' };
  const tags = (await git(['tag', '--list', 'v*', '--sort=-v:refname'])).split('\n').filter(Boolean);
  if (tags.length > 0) return { ref: tags[0], why: `the newest release tag ${tags[0]}` };
  const text = await readFile(join(REPO_ROOT, 'docs', 'release.md'), 'utf8');
  const named = [...text.matchAll(/git tag -a v(\d+)\.(\d+)\.(\d+) ([0-9a-f]{7,40})/g)]
    .map((m) => ({ version: [Number(m[1]), Number(m[2]), Number(m[3])], commit: m[4] }))
    .sort((a, b) => b.version[0] - a.version[0] || b.version[1] - a.version[1] || b.version[2] - a.version[2]);
  if (named.length === 0) throw new Error('no previous chart version: no v* tag, and docs/release.md names no release commit');
  const { version, commit } = named[0];
  await git(['rev-parse', '--verify', `${commit}^{commit}`]);
  return { ref: commit, why: `no release tag yet: v${version.join('.')} as docs/release.md names it (untagged)` };
}

/** `git archive <ref> charts/pv-controller` unpacked under `work`; returns the chart's directory. */
export async function chartAt(ref: string, work: string): Promise<string> {
  const dest = join(work, 'previous-chart');
  await mkdir(dest, { recursive: true });
  const archive = join(work, 'previous-chart.tar');
  await git(['archive', '--format=tar', '-o', archive, ref, 'charts/pv-controller']);
  await run('tar', ['-xf', archive, '-C', dest]);
  return join(dest, 'charts', 'pv-controller');
}

/**
 * The previous chart made to run on network-less nodes the way the working tree's does with
 * hostNetwork and apiServer (values it did not have yet): its pod templates get the host's
 * network and KUBERNETES_SERVICE_HOST/PORT. Nothing else of it changes.
 */
export async function onHostNetwork(chart: string, apiServerPort: number): Promise<void> {
  const env = `\n            - { name: KUBERNETES_SERVICE_HOST, value: "127.0.0.1" }\n            - { name: KUBERNETES_SERVICE_PORT, value: "${apiServerPort}" }`;
  for (const file of ['deployment.yaml', 'node-agent.yaml']) {
    const path = join(chart, 'templates', file);
    const text = await readFile(path, 'utf8');
    if (text.includes('hostNetwork')) continue; // it has the values already
    const patched = text
      .replace(/^( {6})serviceAccountName: (.*)$/m, '$1serviceAccountName: $2\n$1hostNetwork: true\n$1dnsPolicy: ClusterFirstWithHostNet')
      .replace(/^( {10})env:$/m, `$1env:${env}`);
    if (patched === text || !patched.includes('KUBERNETES_SERVICE_HOST')) throw new Error(`cannot put ${file} of the previous chart on the host's network: its pod template changed shape`);
    await writeFile(path, patched);
  }
  if (!(await readdir(join(chart, 'templates'))).includes('node-agent.yaml')) throw new Error('the previous chart has no node agents');
}
