/**
 * Node-gone never destroys on an annotation's word. Everything here is what a client who may
 * write PVs (but not the victim's claims, nor Leases in the controller's namespace) can forge:
 * the old marks on a PV (`node-gone-since` long ago, `node-gone-claim` naming another namespace's
 * claim), a claimRef pointing at someone else's claim, and `provisioned-by` on a static PV.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { ANN_NODE_GONE_CLAIM, ANN_NODE_GONE_SINCE, ANN_PROVISIONED_BY, LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { NODE_HOST_PATH_PROVISIONER } from '../../../src/plugins/host-path/host-path-plugin.js';
import { nodeGoneModule } from '../../../src/controller/node-gone/module.js';
import { parseControllerOptions } from '../../../src/controller/options.js';
import type { FakeCluster } from '../../helpers/fake-context.js';
import { fakeChanges, testModuleEnv } from '../../helpers/module-env.js';
import { DELAY_MS, NODE, PV, localVolume, nodeGoneRig, recordOf, RECORD } from './fixtures.js';

const VICTIM = 'victim/db';

function victimClaim(): PersistentVolumeClaim {
  return {
    metadata: { namespace: 'victim', name: 'db', uid: 'victim-uid' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: 'pvc-victim' },
    status: { phase: 'Bound' },
  };
}

/** A static PV made to look like one of ours, pinned to `node`, with the old marks forged on it. */
function forgedVolume(node: string, marks: Record<string, string>, claimRef?: PersistentVolume['spec']['claimRef']): PersistentVolume {
  return {
    metadata: { name: 'pv-attacker', annotations: { [ANN_PROVISIONED_BY]: NODE_HOST_PATH_PROVISIONER, ...marks } },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Delete',
      local: { path: '/tmp/x' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: LABEL_HOSTNAME, operator: 'In', values: [node] }] }] } },
      ...(claimRef ? { claimRef } : {}),
    },
  };
}

const FORGED_MARKS = {
  [ANN_NODE_GONE_SINCE]: '2000-01-01T00:00:00Z',
  [ANN_NODE_GONE_CLAIM]: JSON.stringify({ uid: 'victim-uid', metadata: { name: 'db', namespace: 'victim' }, spec: { volumeName: 'pv-attacker' } }),
};

test('forged node-gone marks on a PV of a node that never existed neither delete the claim they name nor create one', async () => {
  const { fake } = nodeGoneRig();
  fake.addClaim(victimClaim());
  const pv = fake.addVolume(forgedVolume('never-existed', FORGED_MARKS));
  const instance = rigInstance(fake);
  for (let i = 0; i < 3; i++) {
    fake.clock.advance(DELAY_MS);
    assert.deepEqual(await instance.syncVolume!(pv), { kind: 'done' });
  }
  assert.equal(fake.claim(VICTIM)?.metadata.uid, 'victim-uid');
  assert.equal(fake.claim(VICTIM)?.metadata.deletionTimestamp, undefined);
  assert.deepEqual(fake.successfulWrites(), [], 'nothing is written at all');
});

test('forged marks on a healthy PV whose node is present create no claim (no kube-system/injected) and delete none', async () => {
  const { fake } = nodeGoneRig();
  const injected = JSON.stringify({ uid: 'gone-uid', metadata: { name: 'injected', namespace: 'kube-system' }, spec: {} });
  const pv = fake.addVolume(forgedVolume(NODE, { ...FORGED_MARKS, [ANN_NODE_GONE_CLAIM]: injected }));
  assert.deepEqual(await rigInstance(fake).syncVolume!(pv), { kind: 'done' });
  assert.equal(fake.claim('kube-system/injected'), undefined);
  assert.deepEqual(fake.successfulWrites(), []);
});

test('a claimRef pointed at another namespace’s claim is not that volume’s claim: the claim stays when the node really goes', async () => {
  const { fake } = nodeGoneRig('Delete', { bound: false });
  fake.addClaim(victimClaim());
  const ref = { kind: 'PersistentVolumeClaim', namespace: 'victim', name: 'db', uid: 'victim-uid' };
  const pv = fake.addVolume(forgedVolume(NODE, {}, ref));
  const instance = rigInstance(fake);
  fake.remove('Node', NODE);
  await instance.syncVolume!(pv);
  fake.clock.advance(DELAY_MS);
  assert.deepEqual(await instance.syncVolume!(fake.ctx.volumes.get('pv-attacker')!), { kind: 'done' });
  assert.equal(fake.claim(VICTIM)?.metadata.uid, 'victim-uid');
  assert.equal(fake.claim(VICTIM)?.metadata.deletionTimestamp, undefined, 'the victim claim is never deleted');
  assert.equal(fake.volume('pv-attacker'), undefined, 'only the forged PV itself is removed');
  assert.equal(fake.eventsFor(VICTIM).length, 0, 'the victim is not even told anything');
});

test('a record of another PV of the same name (another uid) is removed, never acted on', async () => {
  const { fake, sync } = nodeGoneRig();
  fake.remove('Node', NODE);
  await sync();
  assert.ok(recordOf(fake));
  // The PV is deleted and a new one of the same name made; the node stays absent (never seen
  // deleted by this process again): the old record is not this PV's clock.
  fake.remove('PersistentVolume', PV);
  fake.addVolume(localVolume('Delete', fake.claim('ns/data')));
  fake.clock.advance(2 * DELAY_MS);
  const instance = rigInstance(fake);
  assert.deepEqual(await instance.syncVolume!(fake.ctx.volumes.get(PV)!), { kind: 'done' });
  assert.equal(fake.serverCopy('Lease', RECORD), undefined, 'the stale record is gone');
  assert.equal(fake.claim('ns/data')?.metadata.deletionTimestamp, undefined);
});

/** A fresh module instance over the rig's cluster (it sees node deletions from now on). */
function rigInstance(fake: FakeCluster) {
  const options = { ...parseControllerOptions({}), nodeGoneDelayMs: DELAY_MS };
  return nodeGoneModule().create(fake.ctx, testModuleEnv(options, { changes: fakeChanges(fake) }));
}
