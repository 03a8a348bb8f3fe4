/**
 * Rendering the chart in tests: `helm template` with the helm tools/cluster/binaries.ts finds,
 * every render pinned to a node (hostPath.node) unless the arguments say otherwise, since a
 * host-path controller is refused without one.
 */
import assert from 'node:assert/strict';
import { parseAllDocuments } from 'yaml';
import { findHelm } from '../../tools/cluster/binaries.js';
import { helmTemplate } from '../../tools/chart/manifests.js';

export const helm = findHelm();
export const helmSkip = helm ? false : 'helm is neither on PATH nor built (`npm run cluster:build` builds it from tools/helm)';

/** The node every test render pins the host-path controller to. */
export const PINNED_NODE = 'node-1';
const PINNED = ['--set', `hostPath.node=${PINNED_NODE}`];

export interface RenderedObject {
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  [key: string]: unknown;
}

export async function render(args: string[] = []): Promise<RenderedObject[]> {
  const docs = parseAllDocuments(await helmTemplate([...PINNED, ...args], helm));
  return docs.map((d) => d.toJS() as RenderedObject).filter((o) => o && o.kind);
}

/** helm template's stderr, which must say why it refused. */
export async function renderFailure(args: string[], pinned = true): Promise<string> {
  const err = await helmTemplate([...(pinned ? PINNED : []), ...args], helm).then(
    () => undefined,
    (e: { stderr?: string }) => e,
  );
  assert.ok(err, `helm template ${args.join(' ')} should fail`);
  return err.stderr ?? '';
}

export function kinds(objects: RenderedObject[]): string[] {
  return objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
}
