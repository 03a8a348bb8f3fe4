/** Server-side apply: creating, changing, conflicting, forcing, giving fields up, list merging, /status, and kubectl's uses of it. */
import type { Case, KubectlStep } from './case.js';
import { APPLY, MERGE, PV, PVC, create, defineCase, item, patch, withQuery } from './fixtures.js';

const AREA = 'patch';

const pvPath = item(PV, 'pv-{id}');
const applyAs = (manager: string, body: unknown, query = ''): ReturnType<typeof patch> =>
  patch(withQuery(pvPath, `fieldManager=${manager}${query}`), APPLY, body);
const pvConfig = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'pv-{id}', ...metadata },
  spec,
});
const fullSpec = { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/fidelity-{id}' } };
const editorChanges = patch(pvPath, MERGE, { metadata: { labels: { owner: 'editor' } }, spec: { persistentVolumeReclaimPolicy: 'Delete' } });
const setup = [create(PV, 'pv-{id}')];

function kubectl(args: string[], more: Partial<KubectlStep> = {}): KubectlStep {
  return { kind: 'kubectl', args, ...more };
}
const claimFile = (size: string): Record<string, string> => ({
  'claim.yaml': `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: claim\nspec:\n  accessModes: [ReadWriteOnce]\n  storageClassName: manual\n  resources:\n    requests:\n      storage: ${size}\n`,
});
const applyClaim = (size: string, extra: string[] = []): KubectlStep =>
  kubectl(['apply', '-f', '{dir}/claim.yaml', '-n', '{ns}', ...extra], { files: claimFile(size) });

export const applyCases: Case[] = [
  defineCase('pv-apply-no-field-manager', AREA, 'server-side apply without fieldManager', patch(pvPath, APPLY, pvConfig(fullSpec)), { resource: PV.resource, setup }),
  defineCase('pv-apply-wrong-kind', AREA, 'server-side apply of another kind', applyAs('a', { ...pvConfig(fullSpec), kind: 'PersistentVolumeClaim' }), { resource: PV.resource, setup }),
  defineCase('pv-apply-managed-fields', AREA, 'server-side apply carrying managedFields', applyAs('a', pvConfig(fullSpec, { managedFields: [{ manager: 'x', operation: 'Apply' }] })), { resource: PV.resource, setup }),
  defineCase('pv-apply-creates', AREA, 'server-side apply creates a PersistentVolume', applyAs('a', pvConfig(fullSpec, { labels: { case: '{id}' }, finalizers: ['example.com/keep'] }))),
  defineCase('pv-apply-shares-value', AREA, 'applying the value another manager set shares it', applyAs('b', pvConfig({ persistentVolumeReclaimPolicy: 'Delete' })), {
    resource: PV.resource,
    setup: [...setup, editorChanges],
  }),
  defineCase('pv-apply-conflict', AREA, 'applying a field another manager owns: 409 naming each field and manager', applyAs('b', pvConfig({ persistentVolumeReclaimPolicy: 'Recycle' }, { labels: { owner: 'b' } })), {
    resource: PV.resource,
    setup: [...setup, editorChanges],
  }),
  defineCase('pv-apply-force', AREA, 'force=true takes the fields', applyAs('b', pvConfig({ persistentVolumeReclaimPolicy: 'Recycle' }, { labels: { owner: 'b' } }), '&force=true'), {
    resource: PV.resource,
    setup: [...setup, editorChanges],
  }),
  defineCase('pv-apply-removes-given-up-field', AREA, 'a field the applier stops setting goes when nobody else owns it', applyAs('a', pvConfig(fullSpec, { labels: { keep: 'x' } })), {
    resource: PV.resource,
    setup: [applyAs('a', pvConfig(fullSpec, { labels: { keep: 'x', drop: 'y' }, annotations: { note: 'n' } }))],
  }),
  defineCase('pv-apply-finalizer-set', AREA, 'finalizers merge as a set', applyAs('b', pvConfig({}, { finalizers: ['example.com/b'] })), {
    resource: PV.resource,
    setup: [applyAs('a', pvConfig(fullSpec, { finalizers: ['example.com/a'] }))],
  }),
  defineCase('pvc-apply-status', AREA, 'server-side apply of /status', patch(withQuery(`${item(PVC, 'claim')}/status`, 'fieldManager=st'), APPLY, {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'claim' },
    status: { conditions: [{ type: 'Resizing', status: 'True' }] },
  }), { resource: PVC.resource, setup: [create(PVC, 'claim')] }),
  defineCase('pv-managed-fields-reset', AREA, 'managedFields: [] clears the record', patch(pvPath, MERGE, { metadata: { managedFields: [] } }), { resource: PV.resource, setup }),
  defineCase('pv-managed-fields-invalid', AREA, 'invalid managedFields in an update are ignored', patch(pvPath, MERGE, { metadata: { labels: { a: 'b' }, managedFields: [{ manager: 'm', operation: 'Bogus', fieldsType: 'FieldsV1', fieldsV1: {} }] } }), {
    resource: PV.resource,
    setup,
  }),
  defineCase('kubectl-apply-server-side-conflict', 'kubectl', 'kubectl apply --server-side of a field kubectl edited', applyClaim('2Gi', ['--server-side', '--field-manager=other']), {
    setup: [applyClaim('1Gi', ['--server-side'])],
  }),
  defineCase('kubectl-apply-force-conflicts', 'kubectl', 'kubectl apply --server-side --force-conflicts', applyClaim('2Gi', ['--server-side', '--field-manager=other', '--force-conflicts']), {
    setup: [applyClaim('1Gi', ['--server-side'])],
  }),
  defineCase('kubectl-apply-migrates-client-side', 'kubectl', 'kubectl apply --server-side of a client-side-applied claim', applyClaim('1Gi', ['--server-side']), { setup: [applyClaim('1Gi')] }),
  defineCase('kubectl-get-show-managed-fields', 'kubectl', 'kubectl get --show-managed-fields', kubectl(['get', 'pvc', 'claim', '-n', '{ns}', '-o', 'yaml', '--show-managed-fields']), {
    setup: [applyClaim('1Gi', ['--server-side'])],
  }),
];
