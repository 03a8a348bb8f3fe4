/**
 * What a claim's data source asks of the provisioner (external-provisioner's `dataSource()` and
 * the kind switch of its prepareProvision): nothing, a restore from a VolumeSnapshot, a clone of
 * another claim, or a kind some volume populator (KEP-1495) fills, which the provisioner leaves
 * alone. kube-apiserver mirrors dataSource and dataSourceRef into each other (AnyVolumeDataSource,
 * GA), so either names the source; dataSource wins when both are set, as upstream reads them.
 * Pure: nothing here reads the API.
 */
import { SNAPSHOT_GROUP } from '@pv-controller/kube/snapshot-types.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';

export const SNAPSHOT_KIND = 'VolumeSnapshot';
export const CLAIM_KIND = 'PersistentVolumeClaim';

export type ClaimDataSource =
  | { kind: 'none' }
  /** A VolumeSnapshot in the claim's namespace. */
  | { kind: 'snapshot'; name: string }
  /** Another claim in the claim's namespace. */
  | { kind: 'clone'; name: string }
  /** A kind this provisioner does not fill: its volume populator will. */
  | { kind: 'populator'; apiGroup: string; sourceKind: string; name: string }
  /** A data source no provisioning can honour: the reason, in upstream's words where it has some. */
  | { kind: 'invalid'; message: string };

/** The claim's data source, dataSource first, then dataSourceRef (upstream's order). */
export function claimDataSource(claim: PersistentVolumeClaim): ClaimDataSource {
  const { dataSource, dataSourceRef } = claim.spec;
  const namespace = claim.metadata.namespace ?? '';
  const ref = dataSource ?? dataSourceRef;
  if (!ref) return { kind: 'none' };
  const refNamespace = dataSource ? '' : (dataSourceRef?.namespace ?? '');
  // Cross-namespace sources (alpha, behind ReferenceGrants) are not served: refused even when the
  // namespace named is the claim's own, as external-provisioner refuses it with the gate off.
  if (refNamespace !== '') {
    return {
      kind: 'invalid',
      message: `dataSourceRef namespace specified but the CrossNamespaceVolumeDataSource feature is disabled: ${ref.kind} "${refNamespace}/${ref.name}" cannot be the source of a claim in namespace "${namespace}"`,
    };
  }
  const apiGroup = ref.apiGroup ?? '';
  if (!ref.name) return { kind: 'invalid', message: `the PVC source not found for PVC ${claim.metadata.name ?? ''}` };
  if (ref.kind === SNAPSHOT_KIND) {
    if (apiGroup !== SNAPSHOT_GROUP) {
      return { kind: 'invalid', message: `the PVC source does not belong to the right APIGroup. Expected ${SNAPSHOT_GROUP}, Got ${apiGroup}` };
    }
    return { kind: 'snapshot', name: ref.name };
  }
  if (ref.kind === CLAIM_KIND && apiGroup === '') return { kind: 'clone', name: ref.name };
  return { kind: 'populator', apiGroup, sourceKind: ref.kind, name: ref.name };
}

/** The source claim's name when `claim` is a clone of another claim in its namespace. */
export function cloneSourceName(claim: PersistentVolumeClaim): string | undefined {
  const source = claimDataSource(claim);
  return source.kind === 'clone' ? source.name : undefined;
}
