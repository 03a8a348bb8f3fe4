/**
 * The chaos suite's CSI pieces that decide a verdict: which claim a driver volume was made for
 * (from the mock's and the fake's volume context), and the `csi-volumes` invariant over the
 * driver's volumes, the PVs and the claims; and the CSI fault actions' counting through a real
 * CSI proxy in front of the fake driver.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { status } from '@grpc/grpc-js';
import { FINALIZER_PROVISIONING } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { connectCsi } from '../../src/csi/client.js';
import { CsiDisruptions } from '../../tools/chaos/csi-faults.js';
import { checkCsiVolumes } from '../../tools/chaos/csi-invariant.js';
import { claimOfVolumeContext, CSI_DRIVER_NAME, type DriverVolume, volumesMadeByName } from '../../tools/chaos/csi.js';
import { CsiProxy } from '../../tools/csi/csi-proxy.js';
import { FakeCsiDriver } from '../csi/fake-driver.js';

const UID_A = '0b7e5a8e-1111-4a4a-9c9c-000000000001';
const UID_B = '0b7e5a8e-2222-4a4a-9c9c-000000000002';

function pv(name: string, handle: string, phase = 'Bound', driver = CSI_DRIVER_NAME): PersistentVolume {
  return { metadata: { name }, spec: { csi: { driver, volumeHandle: handle } }, status: { phase } } as PersistentVolume;
}

function claim(uid: string, finalizers: string[] = []): PersistentVolumeClaim {
  return { metadata: { name: `c-${uid.slice(-1)}`, uid, finalizers }, spec: {} } as PersistentVolumeClaim;
}

function vol(id: string, claimUid?: string): DriverVolume {
  return { id, ...(claimUid ? { claimUid, name: `kubernetes-dynamic-pvc-${claimUid}` } : {}) };
}

test('a driver volume names its claim through the mock\'s CreateVolume name or the fake\'s pv/name parameter', () => {
  assert.deepEqual(claimOfVolumeContext({ name: `kubernetes-dynamic-pvc-${UID_A}` }), { name: `kubernetes-dynamic-pvc-${UID_A}`, claimUid: UID_A });
  assert.equal(claimOfVolumeContext({ 'csi.storage.k8s.io/pv/name': `pvc-${UID_B}`, 'csi.storage.k8s.io/pvc/name': 'data' }).claimUid, UID_B);
  assert.deepEqual(claimOfVolumeContext({ other: 'x' }), {});
  assert.equal(claimOfVolumeContext({ name: 'someone-elses-volume' }).claimUid, undefined);
});

test('csi-volumes: a driver volume named by exactly one PV, or made for a claim still provisioning, is no violation', () => {
  const result = checkCsiVolumes({
    driver: CSI_DRIVER_NAME,
    driverVolumes: [vol('1', UID_A), vol('2', UID_B)],
    claims: [claim(UID_B, [FINALIZER_PROVISIONING])],
    volumes: [pv('pvc-a', '1'), pv('other-driver', '9', 'Bound', 'other.csi.io')],
  });
  assert.deepEqual(result.violations, []);
  assert.equal(result.checked, 3);
});

test('csi-volumes: a driver volume of a deleted claim with no PV is a leak, whatever the claim\'s state', () => {
  const gone = checkCsiVolumes({ driver: CSI_DRIVER_NAME, driverVolumes: [vol('7', UID_A)], claims: [], volumes: [] });
  assert.equal(gone.violations.length, 1);
  assert.match(gone.violations[0]!, /driver volume 7 .* leaked/);
  assert.match(gone.violations[0]!, /which is gone/);
  const finished = checkCsiVolumes({ driver: CSI_DRIVER_NAME, driverVolumes: [vol('8', UID_A)], claims: [claim(UID_A)], volumes: [] });
  assert.match(finished.violations[0]!, /no longer carries the provisioning finalizer/);
  const nameless = checkCsiVolumes({ driver: CSI_DRIVER_NAME, driverVolumes: [vol('9')], claims: [claim(UID_A, [FINALIZER_PROVISIONING])], volumes: [] });
  assert.match(nameless.violations[0]!, /no claim named in its context/);
});

test('csi-volumes: two PVs naming one volume, and a PV in use naming a volume the driver lacks, are violations; a Failed PV\'s is not', () => {
  const result = checkCsiVolumes({
    driver: CSI_DRIVER_NAME,
    driverVolumes: [vol('1', UID_A)],
    claims: [],
    volumes: [pv('pvc-a', '1'), pv('pvc-copy', '1', 'Released'), pv('pvc-b', '2', 'Bound'), pv('pvc-failed', '3', 'Failed')],
  });
  assert.equal(result.violations.length, 2, result.violations.join('\n'));
  assert.match(result.violations[0]!, /driver volume 1 .*named by 2 PVs: pvc-a, pvc-copy/);
  assert.match(result.violations[1]!, /PV pvc-b \(Bound\) names driver volume 2, which the driver does not hold/);
});

test('the CSI fault actions count only the faults that fired; calm lifts every rule and releases every held answer', async (t) => {
  const driver = await FakeCsiDriver.start({ name: CSI_DRIVER_NAME });
  const proxy = await CsiProxy.start({ listen: join(driver.dir, 'proxy.sock'), driver: driver.socketPath });
  const conn = await connectCsi(proxy.address, { timeoutMs: 10_000 });
  t.after(async () => {
    conn.close();
    await proxy.stop();
    await driver.stop();
  });
  const target = { proxy, volumes: async () => [...driver.volumes.values()].map((v) => ({ id: v.id })) };
  const noClaims = { send: () => Promise.reject(new Error('no claim is made by these actions')) };
  const faults = new CsiDisruptions(target, noClaims, () => Promise.resolve(), () => undefined);
  const create = (name: string, timeoutMs?: number) =>
    conn.controller.createVolume({ name, volumeCapabilities: [{ mount: {}, accessMode: 'SINGLE_NODE_WRITER' }], parameters: {}, secrets: {} }, timeoutMs ? { timeoutMs } : undefined);

  faults.failCalls('DeleteVolume', status.UNAVAILABLE, 3);
  for (let i = 0; i < 2; i++) await assert.rejects(conn.controller.deleteVolume({ volumeId: 'vol-x', secrets: {} }), /UNAVAILABLE/);
  assert.deepEqual(faults.faultsFired(), { 'DeleteVolume UNAVAILABLE': 2 });

  // The driver makes the volume; the caller's deadline passes before the held answer comes.
  faults.loseCreateAnswer(60_000);
  await assert.rejects(create('lost', 500), /DEADLINE_EXCEEDED/);
  assert.equal(driver.volumes.size, 1, 'the driver made the volume whose answer was lost');
  assert.equal(proxy.held('CreateVolume', 'after'), 1);

  faults.calm();
  assert.equal(proxy.held(), 0, 'calm released the held answer');
  await conn.controller.deleteVolume({ volumeId: 'vol-x', secrets: {} });
  assert.equal((await create('lost')).volumeId, driver.volumes.get('lost')?.id, 'after calm the calls pass, and the retry finds the volume');
  assert.deepEqual(faults.faultsFired(), { 'DeleteVolume UNAVAILABLE': 2, 'CreateVolume lostAnswer': 1 });
});

test('the mock\'s call log tells how many volumes each CreateVolume name made; failed calls and other methods make none', () => {
  const line = (method: string, name: string, code: string, id?: string): string =>
    JSON.stringify({ time: 't', method: `/csi.v1.Controller/${method}`, request: { name, volumeId: id }, response: id && code === 'OK' ? { volume: { volumeId: id } } : null, code, error: null, durationMs: 0.1 });
  const log = [
    'csi-mock: serving chaos.csi.pv-controller.io on /tmp/x.sock',
    line('CreateVolume', 'kubernetes-dynamic-pvc-a', 'OK', '4'),
    line('CreateVolume', 'kubernetes-dynamic-pvc-a', 'OK', '4'),
    line('DeleteVolume', '', 'OK', '4'),
    line('CreateVolume', 'kubernetes-dynamic-pvc-a', 'OK', '5'),
    line('CreateVolume', 'kubernetes-dynamic-pvc-b', 'Unavailable'),
    line('CreateVolume', 'kubernetes-dynamic-pvc-c', 'OK', '6'),
    '',
  ].join('\n');
  const made = volumesMadeByName(log);
  assert.deepEqual([...made].map(([name, ids]) => [name, [...ids]]), [
    ['kubernetes-dynamic-pvc-a', ['4', '5']],
    ['kubernetes-dynamic-pvc-c', ['6']],
  ]);
});
