import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { Expander } from '../../../src/controller/expander/expander.js';
import { PluginRegistry } from '../../../src/plugins/registry.js';
import { FakeCluster } from '../../helpers/fake-context.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { markModifyFinished, markNodeExpansionPending, markResizeFailed, markResizeFinished, markResizeInProgress } from '../../../src/controller/expander/claim-status.js';
import { nextModifyStep } from '../../../src/controller/expander/modify.js';
import { nextResizeStep } from '../../../src/controller/expander/resize-target.js';

const NOW = '2026-01-01T00:00:00Z';

function claim(requested: string, status: PersistentVolumeClaim['status'] = {}): PersistentVolumeClaim {
  return {
    metadata: { name: 'c', namespace: 'ns', uid: 'u' },
    spec: { resources: { requests: { storage: requested } }, volumeName: 'pv' },
    status: { phase: 'Bound', capacity: { storage: '1Gi' }, ...status },
  };
}

test('the size asked of the plugin follows KEP-1790: the request, the recorded size while in progress, nothing while the node works', () => {
  assert.deepEqual(nextResizeStep(claim('1Gi')), { kind: 'none' });
  assert.deepEqual(nextResizeStep(claim('3Gi')), { kind: 'expand', size: '3Gi' });
  const inProgress = { allocatedResources: { storage: '5Gi' }, allocatedResourceStatuses: { storage: 'ControllerResizeInProgress' } };
  assert.deepEqual(nextResizeStep(claim('2Gi', inProgress)), { kind: 'expand', size: '5Gi' }, 'a resumed expansion asks for what it recorded');
  const nodePending = { allocatedResources: { storage: '5Gi' }, allocatedResourceStatuses: { storage: 'NodeResizePending' } };
  assert.deepEqual(nextResizeStep(claim('8Gi', nodePending)), { kind: 'none' });
  const infeasible = { allocatedResources: { storage: '5Gi' }, allocatedResourceStatuses: { storage: 'ControllerResizeInfeasible' } };
  assert.deepEqual(nextResizeStep(claim('5Gi', infeasible)), { kind: 'none' }, 'the size that failed for good is not asked again');
  assert.deepEqual(nextResizeStep(claim('2Gi', infeasible)), { kind: 'expand', size: '2Gi' }, 'a smaller request is');
});

test('claim status steps write what upstream resizers write, other conditions kept', () => {
  const other = { type: 'Custom', status: 'True' };
  const start = markResizeInProgress(claim('3Gi', { conditions: [other] }), '3Gi', NOW);
  assert.deepEqual(start.status?.allocatedResources, { storage: '3Gi' });
  assert.deepEqual(start.status?.allocatedResourceStatuses, { storage: 'ControllerResizeInProgress' });
  assert.deepEqual(start.status?.conditions?.map((c) => c.type), ['Custom', 'Resizing']);
  const pending = markNodeExpansionPending(start, NOW);
  assert.deepEqual(pending.status?.conditions?.map((c) => c.type), ['Custom', 'Resizing', 'FileSystemResizePending']);
  assert.deepEqual(pending.status?.allocatedResourceStatuses, { storage: 'NodeResizePending' });
  const done = markResizeFinished(start, '3Gi');
  assert.deepEqual([done.status?.capacity, done.status?.allocatedResourceStatuses, done.status?.conditions?.map((c) => c.type)], [{ storage: '3Gi' }, undefined, ['Custom']]);
  const failed = markResizeFailed(start, 'no room', true, NOW);
  assert.deepEqual(failed.status?.conditions?.map((c) => [c.type, c.message]), [['Custom', undefined], ['ControllerResizeError', 'no room']]);
  assert.deepEqual(failed.status?.allocatedResourceStatuses, { storage: 'ControllerResizeInfeasible' });
  assert.deepEqual(markResizeFailed(start, 'later', false, NOW).status?.allocatedResourceStatuses, { storage: 'ControllerResizeInProgress' });
});

test('a modification is due when the claim names a class it does not have, and not again after that class was infeasible', () => {
  const named = (vac: string | undefined, status: PersistentVolumeClaim['status'] = {}): PersistentVolumeClaim =>
    ({ ...claim('1Gi', status), spec: { ...claim('1Gi').spec, ...(vac === undefined ? {} : { volumeAttributesClassName: vac }) } });
  assert.deepEqual(nextModifyStep(named(undefined)), { kind: 'none' });
  assert.deepEqual(nextModifyStep(named('')), { kind: 'none' });
  assert.deepEqual(nextModifyStep(named('gold')), { kind: 'modify', target: 'gold' });
  assert.deepEqual(nextModifyStep(named('gold', { currentVolumeAttributesClassName: 'gold' })), { kind: 'none' });
  const infeasible = { currentVolumeAttributesClassName: 'gold', modifyVolumeStatus: { targetVolumeAttributesClassName: 'silver', status: 'Infeasible' } };
  assert.deepEqual(nextModifyStep(named('silver', infeasible)), { kind: 'none' });
  assert.deepEqual(nextModifyStep(named('bronze', infeasible)), { kind: 'modify', target: 'bronze' });
  const finished = markModifyFinished(named('silver', infeasible), 'silver');
  assert.deepEqual([finished.status?.currentVolumeAttributesClassName, finished.status?.modifyVolumeStatus], ['silver', undefined]);
});

test('a grown claim whose volume no plugin here owns is left to an external controller: ExternalExpanding, no write', async () => {
  const fake = new FakeCluster();
  fake.addVolume({
    metadata: { name: 'pv', annotations: { 'pv.kubernetes.io/provisioned-by': 'ebs.csi.aws.com' } },
    spec: { capacity: { storage: '1Gi' }, csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' }, claimRef: { namespace: 'ns', name: 'c', uid: 'u' } },
  });
  const grown = fake.addClaim(claim('3Gi'));
  const expander = new Expander({ ctx: fake.ctx, plugins: new PluginRegistry(), logger: pino({ level: 'silent' }) });
  await expander.syncClaim(grown);
  await expander.idle();
  assert.deepEqual(fake.eventsFor('ns/c').map((e) => [e.type, e.reason, e.message]),
    [['Normal', 'ExternalExpanding', 'waiting for an external controller to expand this PVC']]);
  assert.deepEqual(fake.writes, []);
  await expander.stop();
});
