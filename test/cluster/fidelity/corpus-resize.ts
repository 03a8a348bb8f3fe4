/**
 * Claims that change after birth: growth and the PersistentVolumeClaimResize admission, the
 * KEP-1790 way back down, the resize and modification fields of a claim's status, and the
 * VolumeAttributesClass rules on claims, volumes and the class itself.
 */
import type { Case, HttpStep } from './case.js';
import { MERGE, PV, PVC, SC, VAC, create, defineCase, item, patch, post } from './fixtures.js';

const AREA = 'resize and attributes';
const CLAIM = item(PVC, 'claim');

/** A class named sc-{id}, expandable or not. */
const storageClass = (expandable: boolean): HttpStep =>
  post(SC.collection, { ...SC.sample('sc-{id}'), ...(expandable ? { allowVolumeExpansion: true } : {}) });

/** A claim of class sc-{id} (pre-bound to pv-{id}, with `vac`), made Bound with 1Gi through /status. */
function boundClaim(vac?: string): HttpStep[] {
  const sample = PVC.sample('claim') as { spec: Record<string, unknown> };
  const spec = { ...sample.spec, storageClassName: 'sc-{id}', volumeName: 'pv-{id}', ...(vac ? { volumeAttributesClassName: vac } : {}) };
  const status = { phase: 'Bound', capacity: { storage: '1Gi' }, ...(vac ? { currentVolumeAttributesClassName: vac } : {}) };
  return [post(PVC.collection, { ...sample, spec }), patch(`${CLAIM}/status`, MERGE, { status })];
}

const storage = (size: string): HttpStep => patch(CLAIM, MERGE, { spec: { resources: { requests: { storage: size } } } });
const claimCase = (id: string, title: string, request: HttpStep, setup: HttpStep[]): Case =>
  defineCase(id, AREA, title, request, { resource: PVC.resource, setup });

const growth: Case[] = [
  claimCase('pvc-grow-class-not-expandable', 'growing a claim whose class does not allow expansion (403)', storage('2Gi'), [storageClass(false), ...boundClaim()]),
  claimCase('pvc-grow-expandable', 'growing a Bound claim of an expandable class', storage('2Gi'), [storageClass(true), ...boundClaim()]),
  claimCase('pvc-grow-unbound', 'growing a claim that is not Bound', storage('2Gi'), [storageClass(true), post(PVC.collection, { ...PVC.sample('claim'), spec: { ...(PVC.sample('claim') as { spec: object }).spec, storageClassName: 'sc-{id}' } })]),
  claimCase('pvc-shrink-to-capacity', 'asking for the capacity a claim has, after a growth (422)', storage('1Gi'), [storageClass(true), ...boundClaim(), storage('4Gi')]),
  claimCase('pvc-shrink-above-capacity', 'asking for less, still above the capacity, after a growth (KEP-1790)', storage('2Gi'), [storageClass(true), ...boundClaim(), storage('4Gi')]),
];

const status: Case[] = [
  claimCase('pvc-status-allocated', 'a resize in progress in a claim status', patch(`${CLAIM}/status`, MERGE, {
    status: { allocatedResources: { storage: '2Gi' }, allocatedResourceStatuses: { storage: 'ControllerResizeInProgress' },
      conditions: [{ type: 'Resizing', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
  }), [storageClass(true), ...boundClaim()]),
  claimCase('pvc-status-resize-status-unknown', 'an unknown allocatedResourceStatuses value (422)', patch(`${CLAIM}/status`, MERGE, {
    status: { allocatedResourceStatuses: { storage: 'Shrinking' } },
  }), [storageClass(true), ...boundClaim()]),
  claimCase('pvc-status-resize-key-unknown', 'an allocatedResourceStatuses key other than storage (422)', patch(`${CLAIM}/status`, MERGE, {
    status: { allocatedResourceStatuses: { memory: 'ControllerResizeInProgress' } },
  }), [storageClass(true), ...boundClaim()]),
  claimCase('pvc-status-allocated-negative', 'a negative allocatedResources quantity (422)', patch(`${CLAIM}/status`, MERGE, {
    status: { allocatedResources: { storage: '-1Gi' } },
  }), [storageClass(true), ...boundClaim()]),
  claimCase('pvc-status-modify-volume', 'a modification in progress in a claim status', patch(`${CLAIM}/status`, MERGE, {
    status: { currentVolumeAttributesClassName: 'gold', modifyVolumeStatus: { targetVolumeAttributesClassName: 'silver', status: 'InProgress' } },
  }), [storageClass(true), ...boundClaim('gold')]),
];

const attributes: Case[] = [
  claimCase('pvc-vac-change-bound', 'naming another VolumeAttributesClass on a Bound claim', patch(CLAIM, MERGE, { spec: { volumeAttributesClassName: 'silver' } }),
    [storageClass(true), ...boundClaim('gold')]),
  claimCase('pvc-vac-remove-applied', 'removing the VolumeAttributesClass a claim has (422)', patch(CLAIM, MERGE, { spec: { volumeAttributesClassName: null } }),
    [storageClass(true), ...boundClaim('gold')]),
  claimCase('pvc-vac-empty-applied', 'setting "" as the VolumeAttributesClass of a claim that has one (422)', patch(CLAIM, MERGE, { spec: { volumeAttributesClassName: '' } }),
    [storageClass(true), ...boundClaim('gold')]),
  defineCase('pv-vac-in-tree', AREA, 'a PersistentVolume of an in-tree source naming a VolumeAttributesClass (422)', post(PV.collection, {
    ...PV.sample('pv-{id}'), spec: { ...(PV.sample('pv-{id}') as { spec: object }).spec, volumeAttributesClassName: 'gold' },
  }), { resource: PV.resource }),
  defineCase('vac-update-immutable', AREA, 'changing the driverName and parameters of a VolumeAttributesClass (422)', patch(item(VAC, 'vac-{id}'), MERGE, {
    driverName: 'other.example.com', parameters: { iops: '1' },
  }), { resource: VAC.resource, setup: [create(VAC, 'vac-{id}')] }),
  defineCase('vac-create-invalid', AREA, 'a VolumeAttributesClass without driverName, with an empty parameter key (422)', post(VAC.collection, {
    ...VAC.sample('vac-{id}'), driverName: '', parameters: { '': 'x' },
  }), { resource: VAC.resource }),
];

export const resizeCases: Case[] = [...growth, ...status, ...attributes];
