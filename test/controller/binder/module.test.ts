import { test } from 'node:test';
import assert from 'node:assert/strict';
import { binderModule } from '../../../src/controller/binder/index.js';
import { parseControllerOptions } from '../../../src/controller/options.js';
import type { ModuleInstance } from '../../../src/controller/runtime/module.js';
import { DONE } from '../../../src/controller/runtime/sync-result.js';
import type { PersistentVolumeClaim } from '../../../src/kube/types.js';
import { FakeCluster } from '../../helpers/fake-context.js';
import { fakeChanges, testModuleEnv } from '../../helpers/module-env.js';
import { pv, pvc, storageClass } from './fixtures.js';

function binder(fake: FakeCluster, peers: ModuleInstance[] = []): ModuleInstance {
  const env = testModuleEnv(parseControllerOptions({}), { changes: fakeChanges(fake), peers: () => peers });
  return binderModule().create(fake.ctx, env);
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

test('the binder module calls the provisioning hook its peers contribute once it has started', async () => {
  const fake = new FakeCluster();
  const asked: string[] = [];
  const provisioner: ModuleInstance = {
    binderHooks: { provisionClaim: async (c: PersistentVolumeClaim) => (asked.push(c.metadata.name ?? ''), DONE), servesProvisioner: () => true },
  };
  const instance = binder(fake, [provisioner]);
  fake.addClass(storageClass('fast', { provisioner: 'example.com/ours' }));
  await instance.start?.();
  await instance.syncClaim?.(fake.addClaim(pvc('data', '1Gi', { cls: 'fast' })));
  assert.deepEqual(asked, ['data']);
});
