/**
 * On a real control plane the controllers may run as deploy/rbac.yaml's ServiceAccount, which is
 * the chart rendered without CSI drivers: it grants nothing a CSI driver needs. A chaos run with
 * a CSI driver upgrades that account to deploy/rbac-csi.yaml (the chart with `csi.drivers` set:
 * Secrets, CSINodes, CSIStorageCapacities, ReplicaSets), as an administrator would by installing
 * the chart with a driver — each object created, or replaced where it exists.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../cluster/binaries.js';
import type { RecordingClient } from './history.js';

interface ManifestObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; uid?: string };
}

/** The collection an object of deploy/ lives in (its kinds' plurals are the kind in lower case plus "s"). */
function collectionOf(o: ManifestObject): string {
  const group = o.apiVersion === 'v1' ? '/api/v1' : `/apis/${o.apiVersion}`;
  const scope = o.metadata.namespace ? `/namespaces/${o.metadata.namespace}` : '';
  return `${group}${scope}/${o.kind.toLowerCase()}s`;
}

async function manifest(file: string): Promise<ManifestObject[]> {
  const docs = parseAllDocuments(await readFile(join(REPO_ROOT, 'deploy', file), 'utf8'));
  return docs.map((d) => d.toJS() as ManifestObject | null).filter((o): o is ManifestObject => o !== null && typeof o.kind === 'string');
}

/** Applies deploy/rbac-csi.yaml with the run's (administrator's) client; throws when an object cannot be written. */
export async function grantControllerCsiAccess(client: RecordingClient): Promise<void> {
  for (const o of await manifest('rbac-csi.yaml')) {
    const collection = collectionOf(o);
    const path = `${collection}/${encodeURIComponent(o.metadata.name)}`;
    const current = await client.get<ManifestObject>(path);
    const body = current ? { ...o, metadata: { ...o.metadata, resourceVersion: current.metadata.resourceVersion } } : o;
    const written = current ? await client.send('setup', 'PUT', path, body) : await client.send('setup', 'POST', collection, body);
    if (written.outcome !== 'ok') throw new Error(`could not apply ${o.kind} ${o.metadata.name} of deploy/rbac-csi.yaml: ${written.error ?? ''}`);
  }
}
