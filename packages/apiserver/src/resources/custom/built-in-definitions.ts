/**
 * The CustomResourceDefinitions the server always serves: external-snapshotter's
 * snapshot.storage.k8s.io kinds, generated from its client module into crds/ (`npm run
 * snapshot:generate`), the same definitions the real-cluster tests install. Read on first use.
 */
import { readFileSync } from 'node:fs';
import type { CustomResourceDefinition } from './crd-types.js';

const SNAPSHOT_CRDS_URL = new URL('../../crds/snapshot.storage.k8s.io.json', import.meta.url);

let loaded: CustomResourceDefinition[] | undefined;

export function builtInDefinitions(): CustomResourceDefinition[] {
  loaded ??= (JSON.parse(readFileSync(SNAPSHOT_CRDS_URL, 'utf8')) as { items: CustomResourceDefinition[] }).items;
  return loaded;
}
