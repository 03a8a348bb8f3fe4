import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { ANN_BETA_STORAGE_PROVISIONER, ANN_STORAGE_PROVISIONER } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { syncClaim, syncVolume, VolumeIndex } from '../../../src/controller/binder/index.js';
import { claim, FAKE_PROVISIONER, harness, storageClass } from './fixtures.js';

function wiredHarness(options: Parameters<typeof harness>[0] = {}) {
  const h = harness(options);
  const index = new VolumeIndex();
  h.fake.onCacheChange((kind, key, obj) => {
    if (kind !== 'PersistentVolume') return;
    if (obj) index.upsert(obj as PersistentVolume);
    else index.remove(key);
  });
  const hooks = { ...h.provisioner.binderHooks(), logger: pino({ level: 'silent' }) };
  return { ...h, index, hooks };
}

test('binder + provisioner: a claim of a served class is provisioned and then bound to its PV', async () => {
  const { fake, provisioner, index, hooks } = wiredHarness();
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data'));
  await syncClaim(fake.ctx, index, pvc, hooks);
  await provisioner.idle();
  const pvName = `pvc-${pvc.metadata.uid}`;
  assert.ok(fake.volume(pvName));
  await syncVolume(fake.ctx, index, fake.volume(pvName)!, hooks);
  await syncClaim(fake.ctx, index, fake.claim('default/data')!, hooks);
  await provisioner.idle();
  assert.equal(fake.claim('default/data')?.spec.volumeName, pvName);
  assert.equal(fake.claim('default/data')?.status?.phase, 'Bound');
  assert.equal(fake.volume(pvName)?.status?.phase, 'Bound');
  assert.equal(fake.serverList('PersistentVolume').length, 1);
});

test('a class naming a provisioner nobody here serves: the binder alone writes the annotations and ExternalProvisioning', async () => {
  const { fake, plugin, provisioner, index, hooks } = wiredHarness();
  fake.addClass(storageClass('external', { provisioner: 'example.com/elsewhere' }));
  const pvc = fake.addClaim(claim('data', { cls: 'external' }));
  await syncClaim(fake.ctx, index, pvc, hooks);
  await provisioner.syncClaim(fake.claim('default/data')!);
  await provisioner.idle();
  const after = fake.claim('default/data');
  assert.equal(after?.metadata.annotations?.[ANN_STORAGE_PROVISIONER], 'example.com/elsewhere');
  assert.equal(after?.metadata.annotations?.[ANN_BETA_STORAGE_PROVISIONER], 'example.com/elsewhere');
  assert.ok(fake.eventReasons('default/data').includes('ExternalProvisioning'));
  assert.equal(fake.successfulWrites({ kind: 'PersistentVolumeClaim' }).length, 1, 'one place writes them, once');
  assert.equal(plugin.provisionCalls.length, 0);
  assert.equal(provisioner.servesProvisioner('example.com/elsewhere'), false);
  assert.equal(provisioner.servesProvisioner(FAKE_PROVISIONER), true);
});

const annotatedFor = (provisioner: string) => ({
  [ANN_STORAGE_PROVISIONER]: provisioner,
  [ANN_BETA_STORAGE_PROVISIONER]: provisioner,
});

test('standalone (no binder here): a Pending claim annotated for our provisioner is provisioned by the claim sync', async () => {
  const { fake, plugin, provisioner } = harness({ binderRunsHere: false });
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data', { annotations: annotatedFor(FAKE_PROVISIONER) }));
  await provisioner.syncClaim(pvc);
  await provisioner.idle();
  assert.equal(plugin.provisionCalls.length, 1);
  assert.ok(fake.volume(`pvc-${pvc.metadata.uid}`));
});

test('standalone: claims annotated for another provisioner, unannotated or already bound are left alone', async () => {
  const { fake, plugin, provisioner } = harness({ binderRunsHere: false });
  fake.addClass(storageClass('fast'));
  await provisioner.syncClaim(fake.addClaim(claim('other', { annotations: annotatedFor('example.com/elsewhere') })));
  await provisioner.syncClaim(fake.addClaim(claim('plain')));
  const bound = claim('bound', { annotations: annotatedFor(FAKE_PROVISIONER) });
  bound.spec.volumeName = 'static';
  await provisioner.syncClaim(fake.addClaim(bound));
  await provisioner.idle();
  assert.equal(plugin.provisionCalls.length, 0);
  assert.equal(fake.successfulWrites().length, 0);
});

test('with the binder in this process the claim sync leaves annotated claims to the binder (it matches volumes first)', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  await provisioner.syncClaim(fake.addClaim(claim('data', { annotations: annotatedFor(FAKE_PROVISIONER) })));
  await provisioner.idle();
  assert.equal(plugin.provisionCalls.length, 0);
});
