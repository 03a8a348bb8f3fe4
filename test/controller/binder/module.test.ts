import { test } from 'node:test';
import assert from 'node:assert/strict';
import { binderModule } from '../../../src/controller/binder/index.js';
import { BinderHookBoard, type BinderHooks } from '../../../src/controller/binder/hooks.js';
import { parseControllerOptions } from '../../../src/controller/options.js';
import type { ModuleInstance } from '../../../src/controller/runtime/module.js';
import { DONE } from '../../../src/controller/runtime/sync-result.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { FakeCluster } from '../../helpers/fake-context.js';
import { fakeChanges, testModuleEnv } from '../../helpers/module-env.js';
import { pv, pvc, storageClass } from './fixtures.js';

function binder(fake: FakeCluster, contributions: Partial<BinderHooks>[] = []): ModuleInstance {
  const env = testModuleEnv(parseControllerOptions({}), { changes: fakeChanges(fake) });
  const board = new BinderHookBoard();
  const instance = binderModule(board).create(fake.ctx, env);
  for (const hooks of contributions) board.contribute(hooks);
  return instance;
}

test('the binder module finds volumes through the index it keeps from store changes, and wakes claims a freed volume fits', async () => {
  const fake = new FakeCluster();
  const instance = binder(fake);
  await instance.start?.();
  const claim = fake.addClaim(pvc('data', '1Gi'));
  fake.addVolume(pv('pv-1', '2Gi', { cls: '' }));
  assert.deepEqual(fake.enqueuedClaims, ['default/data'], 'the new Available volume wakes the pending claim');
  assert.deepEqual(await instance.syncClaim?.(claim), DONE);
  assert.equal(fake.claim('default/data')?.spec.volumeName, 'pv-1');
});

test('the binder module calls the provisioning hook contributed on its board once it has started', async () => {
  const fake = new FakeCluster();
  const asked: string[] = [];
  const provisioner: Partial<BinderHooks> = {
    provisionClaim: async (c: PersistentVolumeClaim) => (asked.push(c.metadata.name ?? ''), DONE),
    servesProvisioner: () => true,
  };
  const instance = binder(fake, [provisioner]);
  fake.addClass(storageClass('fast', { provisioner: 'example.com/ours' }));
  await instance.start?.();
  await instance.syncClaim?.(fake.addClaim(pvc('data', '1Gi', { cls: 'fast' })));
  assert.deepEqual(asked, ['data']);
});

test('the binder module wakes the claims of a StorageClass created after them, and the class-less ones when it is the default', async () => {
  const fake = new FakeCluster();
  const instance = binder(fake);
  await instance.start?.();
  fake.addClaim(pvc('fast-data', '1Gi', { cls: 'fast' }));
  fake.addClaim(pvc('other-data', '1Gi', { cls: 'other' }));
  fake.addClaim(pvc('no-class', '1Gi'));
  fake.enqueuedClaims.length = 0;
  fake.addClass(storageClass('fast', { provisioner: 'example.com/ours' }));
  assert.deepEqual(fake.enqueuedClaims, ['default/fast-data'], 'only the claims naming the new class');
  fake.enqueuedClaims.length = 0;
  const dflt = storageClass('dflt', { provisioner: 'example.com/ours' });
  dflt.metadata.annotations = { 'storageclass.kubernetes.io/is-default-class': 'true' };
  fake.addClass(dflt);
  assert.deepEqual(fake.enqueuedClaims, ['default/no-class'], 'a new default class wakes the claims that name no class');
});

test('a StorageClass change that decides nothing (a label) wakes no claim', async () => {
  const fake = new FakeCluster();
  const instance = binder(fake);
  await instance.start?.();
  fake.addClaim(pvc('fast-data', '1Gi', { cls: 'fast' }));
  const cls = fake.addClass(storageClass('fast', { provisioner: 'example.com/ours' }));
  fake.enqueuedClaims.length = 0;
  fake.addClass({ ...cls, metadata: { ...cls.metadata, labels: { team: 'a' } } });
  assert.deepEqual(fake.enqueuedClaims, []);
  fake.addClass({ ...cls, parameters: { tier: 'gold' } });
  assert.deepEqual(fake.enqueuedClaims, ['default/fast-data'], 'new parameters may change what provisioning does');
});
