/**
 * The plain manifests in deploy/ that the Helm chart is the source of: `npm run chart:manifests`
 * renders them with `helm template` (release pv-controller in kube-system, plainManifests=true)
 * and writes them; `-- --check` only says whether deploy/ still matches the chart. Edit the
 * chart's templates, never the generated files.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findHelm, REPO_ROOT } from '../cluster/binaries.js';

export const CHART_DIR = join(REPO_ROOT, 'charts', 'pv-controller');

/** The chart's values for the node-agent shape (local volumes on many nodes). */
export const NODE_AGENT_VALUES = 'ci/node-agent-values.yaml';
export const CSI_VALUES = 'ci/csi-values.yaml';

export interface PlainManifest {
  template: string;
  file: string;
  /** A values file of the chart to render with (default: the chart's defaults). */
  values?: string;
}

/** Each generated file, the chart template it comes from and the values it is rendered with. */
export const PLAIN_MANIFESTS: readonly PlainManifest[] = [
  { template: 'templates/rbac.yaml', file: 'deploy/rbac.yaml' },
  { template: 'templates/deployment.yaml', file: 'deploy/deployment.yaml' },
  { template: 'templates/service.yaml', file: 'deploy/service.yaml' },
  { template: 'templates/poddisruptionbudget.yaml', file: 'deploy/poddisruptionbudget.yaml' },
  { template: 'templates/storageclasses.yaml', file: 'deploy/storageclass-host-path.yaml' },
  { template: 'templates/node-agent.yaml', file: 'deploy/node-agent.yaml', values: NODE_AGENT_VALUES },
  { template: 'templates/storageclasses.yaml', file: 'deploy/storageclass-host-path-node.yaml', values: NODE_AGENT_VALUES },
  // The controller's roles when it drives CSI drivers (--csi-address): test:cluster's CSI suites run it with these.
  { template: 'templates/rbac.yaml', file: 'deploy/rbac-csi.yaml', values: CSI_VALUES },
];

const run = promisify(execFile);

export function requireHelm(): string {
  const helm = findHelm();
  if (!helm) throw new Error('helm is neither on PATH nor built: run `npm run cluster:build` (it builds helm from tools/helm)');
  return helm;
}

/** `helm template` of the chart with these extra arguments; stdout, or the error with helm's stderr. */
export async function helmTemplate(args: string[], helm: string = requireHelm()): Promise<string> {
  const { stdout } = await run(helm, ['template', 'pv-controller', CHART_DIR, '--namespace', 'kube-system', ...args], { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

function header({ template, values }: PlainManifest): string {
  const source = values ? `${template} with ${values}` : template;
  return `# Generated from charts/pv-controller/${source} by \`npm run chart:manifests\`: edit the chart, not this file.\n`;
}

/**
 * The node deploy/deployment.yaml pins the host-path controller to (the chart refuses to render
 * one without): a placeholder `kubectl apply` users replace with the node holding the volumes.
 */
export const PLAIN_MANIFEST_NODE = 'REPLACE-with-the-node-name';

/** The text a generated file must have. */
export async function renderPlainManifest(manifest: PlainManifest, helm?: string): Promise<string> {
  const values = manifest.values ? ['-f', join(CHART_DIR, manifest.values)] : [];
  const rendered = await helmTemplate([...values, '--set', `plainManifests=true,hostPath.node=${PLAIN_MANIFEST_NODE}`, '--show-only', manifest.template], helm);
  const body = rendered
    .split('\n')
    .filter((line) => !line.startsWith('# Source: '))
    .join('\n')
    .replace(/^---\n/, '')
    // helm ends each document with blank lines before its separator.
    .replace(/\n{2,}---\n/g, '\n---\n')
    .replace(/\n+$/, '\n');
  return header(manifest) + body;
}

/** The generated files whose content differs from the chart's rendering. */
export async function staleManifests(helm?: string): Promise<string[]> {
  const stale: string[] = [];
  for (const manifest of PLAIN_MANIFESTS) {
    const current = await readFile(join(REPO_ROOT, manifest.file), 'utf8').catch(() => '');
    if (current !== (await renderPlainManifest(manifest, helm))) stale.push(manifest.file);
  }
  return stale;
}

async function main(): Promise<number> {
  const helm = requireHelm();
  if (process.argv.includes('--check')) {
    const stale = await staleManifests(helm);
    process.stdout.write(stale.length === 0 ? 'deploy/ matches the chart\n' : `differs from the chart: ${stale.join(', ')} (run npm run chart:manifests)\n`);
    return stale.length === 0 ? 0 : 1;
  }
  for (const manifest of PLAIN_MANIFESTS) {
    await writeFile(join(REPO_ROOT, manifest.file), await renderPlainManifest(manifest, helm));
    process.stdout.write(`${manifest.file} <- charts/pv-controller/${manifest.template}${manifest.values ? ` with ${manifest.values}` : ''}\n`);
  }
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`chart:manifests: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
