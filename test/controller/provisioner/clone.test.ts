import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANN_CLONES_IN_PROGRESS, FINALIZER_PROVISIONING, FINALIZER_PVC_PROTECTION } from '@pv-controller/kube/annotations.js';
import { FINALIZER_CLONING_PROTECTION } from '@pv-controller/kube/snapshot-types.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { FakePlugin, harness, storageClass, waitFor, type ClaimOptions } from './fixtures.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { boundSource, cloneClaim, FakeSnapshotPlugin } from './source-fixtures.js';

const prefix = (cls = 'fast'): string => `Failed to provision volume with StorageClass "${cls}": error getting handle for DataSource Type PersistentVolumeClaim by Name origin: `;
const CLASS = prefix();

function setUp(plugin: FakePlugin = new FakeSnapshotPlugin(), source: Parameters<typeof boundSource>[1] = {}) {
  const h = harness({ plugin });
  h.fake.addClass(storageClass('fast'));
  h.fake.addClass(storageClass('slow'));
  const origin = boundSource('origin', source);
  h.fake.addClaim(origin.claim);
  h.fake.addVolume(origin.pv);
  return { ...h, origin };
}

async function cloneOnce(plugin: FakePlugin, o: ClaimOptions & { source?: Parameters<typeof boundSource>[1]; edit?: (s: PersistentVolumeClaim) => void } = {}) {
  const h = setUp(plugin, o.source ?? {});
  if (o.edit) {
    const edited = structuredClone(h.fake.claim('default/origin')!);
    o.edit(edited);
    h.fake.addClaim(edited);
  }
  await h.provisioner.provisionClaim(h.fake.addClaim(cloneClaim('copy', 'origin', o)));
  await h.provisioner.idle();
  return { ...h, messages: h.fake.eventsFor('default/copy').map((e) => e.message) };
}

const finalizersOf = (fake: ReturnType<typeof harness>['fake'], key: string): string[] => fake.claim(key)?.metadata.finalizers ?? [];

test('a clone is provisioned through provisionClone with the source PV, and the contentSource on the request', async () => {
  const plugin = new FakeSnapshotPlugin();
  const { fake, origin } = await cloneOnce(plugin);
  assert.equal(plugin.cloneCalls.length, 1);
  const { req, source } = plugin.cloneCalls[0];
  assert.equal(source.metadata.name, origin.pv.metadata.name);
  assert.deepEqual(req.contentSource, { kind: 'volume', source });
  const copy = fake.claim('default/copy')!;
  assert.ok(fake.volume(`pvc-${copy.metadata.uid}`), 'the clone\'s PV exists');
  assert.ok(fake.eventReasons('default/copy').includes('ProvisioningSucceeded'));
});

test('the cloning protection is on the source before the plugin copies, and removed once the clone\'s PV exists', async () => {
  const plugin = new FakeSnapshotPlugin();
  const h = setUp(plugin);
  let during: PersistentVolumeClaim | undefined;
  plugin.onProvision = () => (during = h.fake.claim('default/origin'));
  const copy = h.fake.addClaim(cloneClaim('copy', 'origin'));
  await h.provisioner.provisionClaim(copy);
  await h.provisioner.idle();
  assert.ok(during?.metadata.finalizers?.includes(FINALIZER_CLONING_PROTECTION), 'protected while copying');
  assert.equal(during?.metadata.annotations?.[ANN_CLONES_IN_PROGRESS], `copy/${copy.metadata.uid}`);
  const writes = h.fake.successfulWrites({ kind: 'PersistentVolumeClaim' });
  const intent = writes.findIndex((w) => w.key === 'default/copy');
  const protect = writes.findIndex((w) => w.key === 'default/origin');
  assert.ok(intent >= 0 && protect > intent, 'the clone\'s own intent is durable first');
  const after = h.fake.claim('default/origin')!;
  assert.deepEqual(after.metadata.finalizers ?? [], [], 'protection removed');
  assert.equal(after.metadata.annotations?.[ANN_CLONES_IN_PROGRESS], undefined);
  const sourceRelease = writes.findLastIndex((w) => w.key === 'default/origin');
  const intentRelease = writes.findLastIndex((w) => w.key === 'default/copy');
  assert.ok(sourceRelease < intentRelease, 'the source is released before the clone\'s intent');
});

test('two clones of one source at once keep its protection until the last one is done', async () => {
  const plugin = new FakeSnapshotPlugin();
  const h = setUp(plugin);
  const gateA = plugin.holdProvision();
  const a = h.fake.addClaim(cloneClaim('copy-a', 'origin'));
  await h.provisioner.provisionClaim(a);
  await gateA.reached;
  const gateB = plugin.holdProvision();
  const b = h.fake.addClaim(cloneClaim('copy-b', 'origin'));
  await h.provisioner.provisionClaim(b);
  await gateB.reached;
  assert.equal(h.fake.claim('default/origin')?.metadata.annotations?.[ANN_CLONES_IN_PROGRESS], `copy-a/${a.metadata.uid},copy-b/${b.metadata.uid}`);
  gateA.release();
  await waitFor(() => h.fake.volume(`pvc-${a.metadata.uid}`) !== undefined, 'clone A published');
  await waitFor(() => !h.provisioner.isProvisioning('default/copy-a'), 'clone A finished');
  const between = h.fake.claim('default/origin')!;
  assert.ok(between.metadata.finalizers?.includes(FINALIZER_CLONING_PROTECTION), 'B still copies: the protection stays');
  assert.equal(between.metadata.annotations?.[ANN_CLONES_IN_PROGRESS], `copy-b/${b.metadata.uid}`);
  gateB.release();
  await h.provisioner.idle();
  assert.ok(!finalizersOf(h.fake, 'default/origin').includes(FINALIZER_CLONING_PROTECTION), 'removed with the last clone');
});

test('a claim deleted mid-clone leaves no volume and releases the source', async () => {
  const plugin = new FakeSnapshotPlugin();
  const h = setUp(plugin);
  const gate = plugin.holdProvision();
  const copy = h.fake.addClaim(cloneClaim('copy', 'origin'));
  await h.provisioner.provisionClaim(copy);
  await gate.reached;
  const held = h.fake.claim('default/copy')!;
  h.fake.addClaim({ ...held, metadata: { ...held.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' } });
  gate.release();
  await h.provisioner.idle();
  assert.equal(plugin.volumes.size, 0, 'the copied volume was deleted');
  assert.equal(h.fake.volume(`pvc-${copy.metadata.uid}`), undefined);
  assert.equal(plugin.deleteCalls[0].provision?.contentSource?.kind, 'volume', 'the cleanup repeats the create with the clone source');
  assert.ok(!finalizersOf(h.fake, 'default/copy').includes(FINALIZER_PROVISIONING));
  assert.ok(!finalizersOf(h.fake, 'default/origin').includes(FINALIZER_CLONING_PROTECTION));
});

test('a failed clone releases the source protection (no copy runs), and an InProgress one keeps it', async () => {
  const plugin = new FakeSnapshotPlugin();
  plugin.failProvision();
  const { fake } = await cloneOnce(plugin);
  assert.ok(!finalizersOf(fake, 'default/origin').includes(FINALIZER_CLONING_PROTECTION));

  const slow = new FakeSnapshotPlugin();
  slow.failProvision(new PluginError('InProgress', 'still copying', true));
  const second = await cloneOnce(slow);
  assert.ok(finalizersOf(second.fake, 'default/origin').includes(FINALIZER_CLONING_PROTECTION), 'the backend may still be copying');
});

const refusals: { name: string; o: Parameters<typeof cloneOnce>[1]; message: string }[] = [
  { name: 'a request smaller than the source', o: { size: '512Mi' }, message: `error, new PVC request must be greater than or equal in size to the specified PVC data source, requested ${512 * 1024 ** 2} but source is ${1024 ** 3}` },
  { name: 'another StorageClass', o: { cls: 'slow' }, message: 'the source PVC and destination PVCs must be in the same storage class for cloning.  Source is in fast, but new PVC is in slow' },
  { name: 'another volumeMode', o: { volumeMode: 'Block' }, message: 'the source PVC and destination PVCs must have the same volume mode for cloning.  Source is Filesystem, but new PVC requested Block' },
  { name: 'a source not Bound', o: { edit: (s) => (s.status = { phase: 'Pending' }) }, message: 'the PVC DataSource origin must have a status of Bound.  Got phase Pending' },
  { name: 'a source being deleted', o: { edit: (s) => { s.metadata.deletionTimestamp = '2024-01-01T00:00:00Z'; s.metadata.finalizers = [FINALIZER_PVC_PROTECTION]; } }, message: 'the PVC DataSource origin is currently being deleted' },
  { name: 'a source whose PV another plugin handles', o: { source: { pvDriver: 'other.example.com' } }, message: 'claim in dataSource not bound or invalid' },
  { name: 'a source without a volume name', o: { edit: (s) => delete s.spec.volumeName }, message: 'volume name is empty in source PVC origin' },
];

for (const r of refusals) {
  test(`a clone refused: ${r.name}`, async () => {
    const plugin = new FakeSnapshotPlugin();
    const { fake, messages, provisioner } = await cloneOnce(plugin, r.o);
    assert.deepEqual(messages, [`${prefix(r.o?.cls)}${r.message}`]);
    assert.equal(plugin.provisionCalls.length, 0, 'nothing made');
    assert.ok(!finalizersOf(fake, 'default/origin').includes(FINALIZER_CLONING_PROTECTION), 'the source was not touched');
    assert.ok(provisioner.isBackingOff('default/copy'));
  });
}

test('a clone refused: a missing source', async () => {
  const plugin = new FakeSnapshotPlugin();
  const { fake, provisioner } = harness({ plugin });
  fake.addClass(storageClass('fast'));
  await provisioner.provisionClaim(fake.addClaim(cloneClaim('copy', 'origin')));
  await provisioner.idle();
  assert.deepEqual(fake.eventsFor('default/copy').map((e) => e.message), [
    `${CLASS}error getting PVC origin (namespace "default") from api server: persistentvolumeclaim "origin" not found`,
  ]);
  assert.equal(plugin.provisionCalls.length, 0);
});

test('plugins that cannot clone refuse clearly, naming themselves', async () => {
  for (const plugin of [new FakePlugin(), new FakeSnapshotPlugin(false)]) {
    const { messages, origin } = await cloneOnce(plugin);
    assert.deepEqual(messages, ['Failed to provision volume with StorageClass "fast": volume plugin example.com/fake does not support clone operations']);
    assert.equal(plugin.provisionCalls.length, 0);
    assert.ok(origin);
  }
});

test('a source being deleted whose clone was already recorded lets that clone finish', async () => {
  const plugin = new FakeSnapshotPlugin();
  const h = setUp(plugin);
  const copy = h.fake.addClaim(cloneClaim('copy', 'origin', { finalizers: [FINALIZER_PROVISIONING] }));
  const origin = structuredClone(h.fake.claim('default/origin')!);
  origin.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
  origin.metadata.finalizers = [FINALIZER_CLONING_PROTECTION];
  origin.metadata.annotations = { [ANN_CLONES_IN_PROGRESS]: `copy/${copy.metadata.uid}` };
  h.fake.addClaim(origin);
  await h.provisioner.provisionClaim(copy);
  await h.provisioner.idle();
  assert.equal(plugin.cloneCalls.length, 1);
  assert.ok(!finalizersOf(h.fake, 'default/origin').includes(FINALIZER_CLONING_PROTECTION), 'released once done');
});

test('a source being deleted whose recorded clones are all gone loses its protection on its next sync', async () => {
  const h = setUp(new FakeSnapshotPlugin());
  const origin = structuredClone(h.fake.claim('default/origin')!);
  origin.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
  origin.metadata.finalizers = [FINALIZER_CLONING_PROTECTION];
  origin.metadata.annotations = { [ANN_CLONES_IN_PROGRESS]: 'vanished/uid-vanished' };
  await h.provisioner.syncClaim(h.fake.addClaim(origin));
  assert.deepEqual(finalizersOf(h.fake, 'default/origin'), []);
});

test('a source being deleted keeps its protection while a recorded clone still carries its intent', async () => {
  const h = setUp(new FakeSnapshotPlugin());
  const copy = h.fake.addClaim(cloneClaim('copy', 'origin', { finalizers: [FINALIZER_PROVISIONING] }));
  const origin = structuredClone(h.fake.claim('default/origin')!);
  origin.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
  origin.metadata.finalizers = [FINALIZER_CLONING_PROTECTION];
  origin.metadata.annotations = { [ANN_CLONES_IN_PROGRESS]: `copy/${copy.metadata.uid}` };
  await h.provisioner.syncClaim(h.fake.addClaim(origin));
  assert.deepEqual(finalizersOf(h.fake, 'default/origin'), [FINALIZER_CLONING_PROTECTION]);
});
