import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANN_BETA_STORAGE_PROVISIONER, ANN_STORAGE_PROVISIONER } from '@pv-controller/kube/annotations.js';
import { parseControllerOptions } from '../../../src/controller/options.js';
import { provisionerModule } from '../../../src/controller/provisioner/module.js';
import { BinderHookBoard } from '../../../src/controller/binder/hooks.js';
import type { Provisioner } from '../../../src/controller/provisioner/index.js';
import { PluginRegistry } from '../../../src/plugins/registry.js';
import { FakeCluster } from '../../helpers/fake-context.js';
import { testModuleEnv } from '../../helpers/module-env.js';
import { claim, FAKE_PROVISIONER, FakePlugin, storageClass } from './fixtures.js';

function build(controllers: string, plugins: PluginRegistry) {
  const fake = new FakeCluster();
  let provisioner: Provisioner | undefined;
  const board = new BinderHookBoard();
  const contributed = board.open();
  const module = provisionerModule({ onCreated: (p) => (provisioner = p), createRetryDelayMs: 1 }, board);
  const options = parseControllerOptions({ controllers, clusterName: 'mod' });
  const instance = module.create(fake.ctx, testModuleEnv(options, { plugins }));
  assert.ok(provisioner);
  return { fake, instance, provisioner, contributed };
}

test('the module is named "provisioner", gives the binder its hooks and syncs claims itself', () => {
  const plugin = new FakePlugin();
  const { instance, contributed } = build('*', new PluginRegistry([plugin]));
  assert.equal(provisionerModule().name, 'provisioner');
  assert.equal(contributed.length, 1, 'its hooks are on the board the binder reads');
  assert.equal(typeof contributed[0]?.provisionClaim, 'function');
  assert.equal(contributed[0]?.servesProvisioner?.(FAKE_PROVISIONER), true);
  assert.equal(contributed[0]?.servesProvisioner?.('example.com/elsewhere'), false);
  assert.equal(typeof instance.syncClaim, 'function');
});

test('with --controllers=provisioner only, an annotated claim is provisioned with the cluster name from the options', async () => {
  const plugin = new FakePlugin();
  const { fake, instance, provisioner } = build('provisioner', new PluginRegistry([plugin]));
  fake.addClass(storageClass('fast'));
  const annotations = { [ANN_STORAGE_PROVISIONER]: FAKE_PROVISIONER, [ANN_BETA_STORAGE_PROVISIONER]: FAKE_PROVISIONER };
  const pvc = fake.addClaim(claim('data', { annotations }));
  await instance.syncClaim?.(pvc);
  await provisioner.idle();
  assert.equal(plugin.provisionCalls[0]?.backingName, `mod-dynamic-pvc-${pvc.metadata.uid}`);
  await instance.stop?.();
});

test('with the binder enabled the module does not provision annotated claims on its own', async () => {
  const plugin = new FakePlugin();
  const { fake, instance, provisioner } = build('binder,provisioner', new PluginRegistry([plugin]));
  fake.addClass(storageClass('fast'));
  const annotations = { [ANN_STORAGE_PROVISIONER]: FAKE_PROVISIONER };
  await instance.syncClaim?.(fake.addClaim(claim('data', { annotations })));
  await provisioner.idle();
  assert.equal(plugin.provisionCalls.length, 0);
});
