/**
 * The reclaimer and CSI volumes: a volume of a driver this process drives (`--csi-address`) is
 * ours to delete, and external-provisioner's HonorPVReclaimPolicy finalizer on it is traded for
 * ours (pv-controller took the driver over); a volume of any other driver stays the external
 * deleter's, untouched.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FINALIZER_EXTERNAL_PROVISIONER, FINALIZER_PV_CONTROLLER, FINALIZER_PV_PROTECTION } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { DeleteRequest } from '../../../src/plugins/api/core.js';
import { NilMetricsProvider } from '../../../src/metrics/nil.js';
import { PluginRegistry } from '../../../src/plugins/registry.js';
import { rig, volume } from './fixtures.js';

const DRIVER = 'csi.example.com';

/** A CSI driver's plugin: named after the driver, owning the PVs whose csi source names it. */
function csiPlugin(deleted: string[]) {
  return {
    name: DRIVER,
    csiDriver: DRIVER,
    maxBackingNameLength: 128,
    validateParameters: () => [],
    handles: (pv: PersistentVolume) => (pv.spec.csi as { driver?: string } | undefined)?.driver === DRIVER,
    provision: () => Promise.reject(new Error('not used')),
    delete: async (req: DeleteRequest) => void deleted.push(req.pv?.metadata.name ?? ''),
    metricsFor: () => new NilMetricsProvider('csi'),
  };
}

function csiVolume(name: string, driver: string, finalizers: string[], phase = 'Released'): PersistentVolume {
  const pv = volume(name, { provisionedBy: driver, finalizers, phase });
  delete pv.spec.hostPath;
  pv.spec.csi = { driver, volumeHandle: `handle-${name}` };
  return pv;
}

test('a Released CSI volume of a driver we drive is deleted through its plugin, and the PV goes', async () => {
  const deleted: string[] = [];
  const r = rig({ plugins: new PluginRegistry([csiPlugin(deleted)]) });
  r.fake.addVolume(csiVolume('v', DRIVER, [FINALIZER_PV_CONTROLLER]));
  await r.reclaim();
  assert.deepEqual(deleted, ['v']);
  assert.equal(r.fake.volume('v'), undefined);
});

test('a CSI volume of a driver we do not drive is left to its external deleter', async () => {
  const deleted: string[] = [];
  const r = rig({ plugins: new PluginRegistry([csiPlugin(deleted)]) });
  r.fake.addVolume(csiVolume('v', 'other.example.com', [FINALIZER_EXTERNAL_PROVISIONER]));
  await r.reclaim();
  await r.presync();
  assert.deepEqual(deleted, []);
  assert.equal(r.fake.successfulWrites().length, 0);
});

test('a driver taken over from external-provisioner: its PVs trade the external provisioner\'s finalizer for ours', async () => {
  const r = rig({ plugins: new PluginRegistry([csiPlugin([])]) });
  r.fake.addVolume(csiVolume('v', DRIVER, [FINALIZER_PV_PROTECTION, FINALIZER_EXTERNAL_PROVISIONER], 'Bound'));
  await r.presync();
  assert.deepEqual(r.fake.volume('v')!.metadata.finalizers, [FINALIZER_PV_PROTECTION, FINALIZER_PV_CONTROLLER]);
});
