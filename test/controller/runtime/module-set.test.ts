import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseControllerOptions } from '../../../src/controller/options.js';
import type { ControllerModule, ModuleInstance } from '../../../src/controller/runtime/module.js';
import { ModuleSet } from '../../../src/controller/runtime/module-set.js';
import { DONE } from '../../../src/controller/runtime/sync-result.js';
import type { PersistentVolumeClaim } from '../../../src/kube/types.js';
import { PluginRegistry } from '../../../src/plugins/registry.js';
import { FakeCluster } from '../../helpers/fake-context.js';
import { newClaim, silentLog } from '../../helpers/objects.js';

const noChanges = { onChange: () => undefined };

function moduleSet(fake: FakeCluster, modules: ControllerModule[], controllers = '*'): ModuleSet {
  const options = parseControllerOptions({ controllers });
  return new ModuleSet(modules, fake.ctx, { options, plugins: new PluginRegistry(), changes: { volumes: noChanges, claims: noChanges, classes: noChanges } }, silentLog);
}

function recorder(name: string, seen: string[], instance: ModuleInstance = {}): ControllerModule {
  return {
    name,
    create: () => ({
      syncClaim: async (claim: PersistentVolumeClaim) => (seen.push(`${name} ${claim.metadata.resourceVersion}`), DONE),
      ...instance,
    }),
  };
}

test('modules switched off by --controllers are never built; names it does not list always run', () => {
  const built: string[] = [];
  const named = (name: string): ControllerModule => ({ name, create: () => (built.push(name), {}) });
  moduleSet(new FakeCluster(), [named('binder'), named('provisioner'), named('probe')], '*,-binder');
  assert.deepEqual(built, ['provisioner', 'probe']);
});

test('each module syncs a key in list order and sees the copy an earlier module wrote; the most urgent answer wins', async () => {
  const fake = new FakeCluster();
  const claim = fake.addClaim(newClaim('default', 'c'));
  const seen: string[] = [];
  const writer: ControllerModule = {
    name: 'writer',
    create: (ctx) => ({
      syncClaim: async (c) => {
        seen.push(`writer ${c.metadata.resourceVersion}`);
        await ctx.api.updateClaim({ ...c, metadata: { ...c.metadata, labels: { touched: 'yes' } } });
        return { kind: 'requeueAfter', ms: 50 };
      },
    }),
  };
  const set = moduleSet(fake, [writer, recorder('after', seen, { syncVolume: async () => DONE })]);
  const result = await set.syncClaim(fake.ctx.claims, 'default/c');
  const written = fake.claim('default/c');
  assert.deepEqual(seen, [`writer ${claim.metadata.resourceVersion}`, `after ${written?.metadata.resourceVersion}`]);
  assert.notEqual(written?.metadata.resourceVersion, claim.metadata.resourceVersion);
  assert.deepEqual(result, { kind: 'requeueAfter', ms: 50 });
  assert.deepEqual(await set.syncClaim(fake.ctx.claims, 'default/gone'), DONE, 'a key no store holds is done');
});

test('a module sees its peers (never itself) from start on, in list order', async () => {
  let peersAtStart: readonly ModuleInstance[] = [];
  const watcher: ControllerModule = {
    name: 'watcher',
    create: (_ctx, env) => ({ start: () => void (peersAtStart = env.peers()) }),
  };
  const a: ModuleInstance = { binderHooks: { claimBusy: () => true } };
  const b: ModuleInstance = {};
  const set = moduleSet(new FakeCluster(), [watcher, { name: 'a', create: () => a }, { name: 'b', create: () => b }]);
  await set.start();
  assert.deepEqual(peersAtStart, [a, b]);
  assert.equal(peersAtStart[0], a);
});
