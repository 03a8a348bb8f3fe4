/**
 * On a real control plane the controllers run as deploy/rbac.yaml's ServiceAccount, and that
 * file is the chart rendered without CSI drivers: it grants nothing a CSI driver needs. The chart
 * grants more when `csi.drivers` is set (charts/pv-controller/templates/rbac.yaml): Secrets (the
 * classes' secret parameters; the provenance key, created once), CSINodes, and the
 * CSIStorageCapacity objects with the ReplicaSet that owns them. A chaos run with a CSI driver
 * grants the same to that account, as an administrator installing the chart with a driver would.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../cluster/binaries.js';
import type { RecordingClient } from './history.js';

const NAME = 'chaos-csi-controller';

async function controllerAccount(): Promise<{ name: string; namespace: string }> {
  const docs = parseAllDocuments(await readFile(join(REPO_ROOT, 'deploy', 'rbac.yaml'), 'utf8'));
  for (const doc of docs) {
    const obj = doc.toJS() as { kind?: string; metadata?: { name?: string; namespace?: string } } | null;
    if (obj?.kind === 'ServiceAccount' && obj.metadata?.name && obj.metadata.namespace) return { name: obj.metadata.name, namespace: obj.metadata.namespace };
  }
  throw new Error('deploy/rbac.yaml has no namespaced ServiceAccount');
}

/** Grants deploy/rbac.yaml's ServiceAccount what the chart grants it with CSI drivers; throws when the grant is refused. */
export async function grantControllerCsiAccess(client: RecordingClient): Promise<void> {
  const account = await controllerAccount();
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: NAME },
    rules: [
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create'] },
      { apiGroups: ['storage.k8s.io'], resources: ['csinodes'], verbs: ['get', 'list'] },
      { apiGroups: ['storage.k8s.io'], resources: ['csistoragecapacities'], verbs: ['list', 'create', 'update', 'delete'] },
      { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['get'] },
    ],
  };
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: NAME },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: NAME },
    subjects: [{ kind: 'ServiceAccount', ...account }],
  };
  for (const [path, body] of [
    ['/apis/rbac.authorization.k8s.io/v1/clusterroles', role],
    ['/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', binding],
  ] as const) {
    const made = await client.send('setup', 'POST', path, body);
    if (made.outcome !== 'ok') throw new Error(`could not grant the controllers CSI access (${path}): ${made.error ?? ''}`);
  }
}
