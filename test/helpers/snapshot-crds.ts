/**
 * The snapshot.storage.k8s.io kinds for a test server. The embedded server serves them from the
 * generated definitions (packages/apiserver/src/crds/); a real kube-apiserver is handed the same
 * CustomResourceDefinitions, as a cluster admin installs external-snapshotter's CRDs, and the
 * test waits until they are Established.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ApiextensionsV1Api, type KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import type { TestApiServer } from './apiserver.js';
import { waitFor } from './wait.js';

const CRDS_FILE = fileURLToPath(new URL('../../../packages/apiserver/src/crds/snapshot.storage.k8s.io.json', import.meta.url));

/**
 * The three CustomResourceDefinitions, as generated from external-snapshotter's client module,
 * as client-node's models (read through its ObjectSerializer). The file's JSON cannot be handed to
 * a generated call as it is: the call serialises its body by the models' property names
 * (`x_kubernetes_validations`), so the schema's `x-kubernetes-*` keys would be dropped on the way
 * and the real server would get CRDs without their CEL rules and merge markers.
 */
export async function snapshotCrds(): Promise<V1CustomResourceDefinition[]> {
  const list = JSON.parse(await readFile(CRDS_FILE, 'utf8')) as { items: unknown[] };
  return list.items.map((item) => ObjectSerializer.deserialize(item, 'V1CustomResourceDefinition', '') as V1CustomResourceDefinition);
}

export const SNAPSHOT_CRDS_FILE = CRDS_FILE;

/** Makes sure the server serves the snapshot kinds: installs the CRDs on a real kube-apiserver. */
export async function ensureSnapshotKinds(api: TestApiServer): Promise<void> {
  if (api.embedded) return;
  await installSnapshotCrds(api.kc);
}

/** Creates the three CRDs (where missing) through `kc` and waits until they are Established. */
export async function installSnapshotCrds(kc: KubeConfig): Promise<void> {
  const client = kc.makeApiClient(ApiextensionsV1Api);
  for (const crd of await snapshotCrds()) {
    try {
      await client.createCustomResourceDefinition({ body: crd });
    } catch (err) {
      if ((err as { code?: number }).code !== 409) throw err;
    }
  }
  const names = (await snapshotCrds()).map((c) => c.metadata?.name ?? '');
  await waitFor(
    async () => {
      for (const name of names) {
        const got = await client.readCustomResourceDefinition({ name });
        const established = got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
        if (!established) return false;
      }
      return true;
    },
    'the snapshot CRDs to be Established',
    { timeoutMs: 60_000, intervalMs: 200 },
  );
}
