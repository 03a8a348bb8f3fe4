/**
 * The controller and the CSI plugin together (in-memory driver): a claim deleted while
 * CreateVolume runs ends with DeleteVolume of the id CreateVolume answered — found by repeating
 * the same CreateVolume from the request cleanup rebuilds — and the intent finalizer is released
 * only after; a provisioned PV carries the plugin's annotations (the deletion Secret).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import {
  ANN_CSI_DELETION_SECRET_NAME,
  ANN_CSI_DELETION_SECRET_NAMESPACE,
  ANN_PROVISIONED_BY,
  FINALIZER_PROVISIONING,
} from '@pv-controller/kube/annotations.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { CsiCallError, type CreateVolumeRequest, type DeleteVolumeRequest } from '../../../src/csi/types.js';
import { Provisioner } from '../../../src/controller/provisioner/index.js';
import { PluginRegistry } from '../../../src/plugins/registry.js';
import { createCsiPlugin } from '../../../src/plugins/csi/index.js';
import { FakeCluster } from '../../helpers/fake-context.js';
import { FakeCsiDriver } from '../../plugins/csi/fake-connection.js';
import { claim, recordingMetrics, storageClass } from './fixtures.js';

const DRIVER = 'fake.csi.pv-controller.io';
const PARAMS = {
  type: 'ssd',
  'csi.storage.k8s.io/provisioner-secret-name': 'prov',
  'csi.storage.k8s.io/provisioner-secret-namespace': 'storage',
};

async function setup() {
  const fake = new FakeCluster();
  const driver = new FakeCsiDriver({ name: DRIVER, controllerCapabilities: ['CREATE_DELETE_VOLUME'] });
  const plugin = await createCsiPlugin(driver, {
    clusterName: 'unit',
    secrets: async (ns, name) => (ns === 'storage' && name === 'prov' ? { token: 't0k' } : undefined),
    topology: { nodeSegment: async () => undefined, allSegments: async () => [] },
    logger: pino({ level: 'silent' }),
  });
  const provisioner = new Provisioner({
    ctx: fake.ctx,
    plugins: new PluginRegistry([plugin]),
    clusterName: 'unit',
    logger: pino({ level: 'silent' }),
    metrics: recordingMetrics(),
    createRetryDelayMs: 1,
    initialBackoffMs: 60_000,
  });
  fake.addClass(storageClass('fast', { provisioner: DRIVER, parameters: PARAMS }));
  return { fake, driver, provisioner };
}

test('a claim deleted while CreateVolume is in flight ends with DeleteVolume of the id CreateVolume returned, and the finalizer released only after', async () => {
  const { fake, driver, provisioner } = await setup();
  const pvc = fake.addClaim(claim('data'));
  const held = driver.holdCreate();
  // The finalizers the claim has when DeleteVolume runs.
  const finalizersAtDelete: string[][] = [];
  const deleteVolume = driver.controller.deleteVolume.bind(driver.controller);
  driver.controller.deleteVolume = async (req, o) => {
    finalizersAtDelete.push([...(fake.claim('default/data')?.metadata.finalizers ?? [])]);
    return deleteVolume(req, o);
  };
  await provisioner.provisionClaim(pvc);
  await held.entered;
  const live = structuredClone(fake.claim('default/data')) as PersistentVolumeClaim;
  live.metadata.deletionTimestamp = '2024-01-01T00:00:05Z';
  await provisioner.syncClaim(fake.seed('PersistentVolumeClaim', live));
  held.release();
  await provisioner.idle();

  const creates = driver.callsOf('CreateVolume') as CreateVolumeRequest[];
  assert.equal(creates.length, 2, 'cleanup repeated the CreateVolume');
  assert.deepEqual(creates[1], creates[0], 'with the very same request');
  const deletes = driver.callsOf('DeleteVolume') as DeleteVolumeRequest[];
  assert.deepEqual(deletes, [{ volumeId: 'fake-vol-1', secrets: { token: 't0k' } }]);
  assert.deepEqual(finalizersAtDelete, [[FINALIZER_PROVISIONING]], 'the intent was still recorded when DeleteVolume ran');
  assert.equal(driver.volumes.size, 0, 'no volume left on the driver');
  assert.equal(fake.claim('default/data'), undefined, 'the claim is gone: its finalizer was released');
  assert.equal(fake.serverList('PersistentVolume').length, 0);
});

test('a CSI PV carries the deletion-secret annotations the plugin returns beside the controller’s own', async () => {
  const { fake, driver, provisioner } = await setup();
  await provisioner.provisionClaim(fake.addClaim(claim('data')));
  await provisioner.idle();
  const [pv] = fake.serverList<PersistentVolume>('PersistentVolume');
  assert.ok(pv, 'a PV was created');
  assert.equal(pv.metadata.annotations?.[ANN_CSI_DELETION_SECRET_NAME], 'prov');
  assert.equal(pv.metadata.annotations?.[ANN_CSI_DELETION_SECRET_NAMESPACE], 'storage');
  assert.equal(pv.metadata.annotations?.[ANN_PROVISIONED_BY], DRIVER);
  assert.equal(pv.spec.csi?.volumeHandle, 'fake-vol-1');
  assert.equal(driver.volumes.size, 1);
});

test('a CreateVolume whose outcome is unknown (DEADLINE_EXCEEDED) cleans nothing up: the intent stays and the next attempt repeats the same call', async () => {
  const { fake, driver, provisioner } = await setup();
  driver.failNext('CreateVolume', new CsiCallError('/csi.v1.Controller/CreateVolume', 4, 'DEADLINE_EXCEEDED', 'in-progress', 'deadline exceeded'));
  await provisioner.provisionClaim(fake.addClaim(claim('data')));
  await provisioner.idle();
  assert.equal(driver.callsOf('CreateVolume').length, 1);
  assert.equal(driver.callsOf('DeleteVolume').length, 0, 'no clean-up: the driver may still be making the volume');
  assert.deepEqual(fake.claim('default/data')?.metadata.finalizers, [FINALIZER_PROVISIONING], 'the intent is kept for the retry');
  assert.deepEqual(fake.eventReasons('default/data'), ['ProvisioningFailed']);
});

test('a final CreateVolume refusal (INVALID_ARGUMENT) is cleaned up: the intent goes, nothing is left on the driver', async () => {
  const { fake, driver, provisioner } = await setup();
  driver.failNext('CreateVolume', ...[1, 2].map(() => new CsiCallError('/csi.v1.Controller/CreateVolume', 3, 'INVALID_ARGUMENT', 'final', 'bad type')));
  await provisioner.provisionClaim(fake.addClaim(claim('data')));
  await provisioner.idle();
  assert.equal(driver.callsOf('DeleteVolume').length, 0, 'the repeated create was refused too: no volume to delete');
  assert.deepEqual(fake.claim('default/data')?.metadata.finalizers ?? [], [], 'the intent was released');
  assert.equal(driver.volumes.size, 0);
});
