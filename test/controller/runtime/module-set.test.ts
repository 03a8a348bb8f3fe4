import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino, type Logger } from 'pino';
import { parseControllerOptions } from '../../../src/controller/options.js';
import type { ControllerModule, ModuleInstance } from '../../../src/controller/runtime/module.js';
import { ModuleSet } from '../../../src/controller/runtime/module-set.js';
import type { ControllerContext } from '../../../src/controller/runtime/context.js';
import { EventReason } from '../../../src/controller/runtime/event-reasons.js';
import { StoppedWriteError } from '../../../src/controller/runtime/stop-guarded-api.js';
import { DONE } from '../../../src/controller/runtime/sync-result.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { PluginRegistry } from '../../../src/plugins/registry.js';
import { FakeCluster } from '../../helpers/fake-context.js';
import { newClaim, newVolume, silentLog } from '../../helpers/objects.js';

const noChanges = { onChange: () => undefined };

function moduleSet(fake: FakeCluster, modules: ControllerModule[], controllers = '*', log: Logger = silentLog): ModuleSet {
  const options = parseControllerOptions({ controllers });
  return new ModuleSet(modules, fake.ctx, { options, plugins: new PluginRegistry(), changes: { volumes: noChanges, claims: noChanges, classes: noChanges } }, log);
}

/** A logger whose records are kept, to see what was logged and under which module. */
function capturingLog(): { log: Logger; records: Array<Record<string, unknown>> } {
  const records: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void records.push(JSON.parse(line) as Record<string, unknown>) });
  return { log, records };
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


test('a module that throws for a claim does not stop the modules after it, and owes the key a retry after its own backoff', async () => {
  const fake = new FakeCluster();
  fake.addClaim(newClaim('default', 'c'));
  const seen: string[] = [];
  let throws = 2;
  const binder: ControllerModule = {
    name: 'binder',
    create: () => ({
      syncClaim: async () => {
        seen.push('binder');
        if (throws-- > 0) throw new Error('binder exploded');
        return DONE;
      },
    }),
  };
  const { log, records } = capturingLog();
  const set = moduleSet(fake, [binder, recorder('provisioner', seen), recorder('expander', seen)], '*', log);
  const rv = fake.claim('default/c')?.metadata.resourceVersion;
  assert.deepEqual(await set.syncClaim(fake.ctx.claims, 'default/c'), { kind: 'requeueAfter', ms: 5 });
  assert.deepEqual(seen, ['binder', `provisioner ${rv}`, `expander ${rv}`], 'the provisioner and the expander still synced the key');
  assert.deepEqual(await set.syncClaim(fake.ctx.claims, 'default/c'), { kind: 'requeueAfter', ms: 10 }, "a second failure doubles the binder's backoff");
  assert.deepEqual(await set.syncClaim(fake.ctx.claims, 'default/c'), DONE, 'the retried binder succeeded');
  const failures = records.filter((r) => r.msg === 'module sync failed');
  assert.equal(failures.length, 2);
  assert.equal(failures[0]?.module, 'binder');
  assert.equal(failures[0]?.err, 'binder exploded');
  assert.equal(failures[0]?.key, 'claim:default/c');
  throws = 1;
  assert.deepEqual(await set.syncClaim(fake.ctx.claims, 'default/c'), { kind: 'requeueAfter', ms: 5 }, 'a success forgot the failures');
});

test('a module that throws for a volume is retried after its backoff; the other modules answer as they would', async () => {
  const fake = new FakeCluster();
  fake.addVolume(newVolume('pv-1'));
  const thrower: ControllerModule = { name: 'thrower', create: () => ({ syncVolume: () => Promise.reject(new Error('no')) }) };
  const later: ControllerModule = { name: 'later', create: () => ({ syncVolume: async () => ({ kind: 'requeueAfter', ms: 1 }) }) };
  const set = moduleSet(fake, [thrower, later]);
  assert.deepEqual(await set.syncVolume(fake.ctx.volumes, 'pv-1'), { kind: 'requeueAfter', ms: 1 }, 'the sooner answer wins');
  assert.deepEqual(await set.syncVolume(fake.ctx.volumes, 'pv-1'), { kind: 'requeueAfter', ms: 1 });
});

test('a module whose start or stop throws does not keep the others from starting or stopping', async () => {
  const calls: string[] = [];
  const failing: ControllerModule = {
    name: 'failing',
    create: () => ({
      start: () => (calls.push('failing start'), Promise.reject(new Error('cannot start'))),
      stop: () => {
        calls.push('failing stop');
        throw new Error('cannot stop');
      },
    }),
  };
  const fine: ControllerModule = { name: 'fine', create: () => ({ start: () => void calls.push('fine start'), stop: () => void calls.push('fine stop') }) };
  const { log, records } = capturingLog();
  const set = moduleSet(new FakeCluster(), [failing, fine], '*', log);
  await set.start();
  await set.stop();
  assert.deepEqual(calls, ['failing start', 'fine start', 'failing stop', 'fine stop']);
  assert.deepEqual(
    records.filter((r) => r.level === 50).map((r) => [r.module, r.msg, r.err]),
    [
      ['failing', 'module start failed', 'cannot start'],
      ['failing', 'module stop failed', 'cannot stop'],
    ],
  );
});

test('once the module set stops, no module writes: the ApiClient it was given refuses with a clear error, events are dropped, reads still work', async () => {
  const fake = new FakeCluster();
  const claim = fake.addClaim(newClaim('default', 'c'));
  let given: ControllerContext | undefined;
  const late: ControllerModule = { name: 'late', create: (ctx) => ((given = ctx), {}) };
  const set = moduleSet(fake, [late]);
  await given!.api.updateClaim({ ...claim, metadata: { ...claim.metadata, labels: { before: 'stop' } } });
  const writesBeforeStop = fake.writes.length;
  await set.stop();
  await assert.rejects(
    given!.api.updateClaim({ ...claim, metadata: { ...claim.metadata, labels: { after: 'stop' } } }),
    (err: unknown) => err instanceof StoppedWriteError && /updateClaim refused: the controller modules have stopped/.test(err.message),
  );
  await assert.rejects(given!.api.deleteVolume('pv-1'), StoppedWriteError);
  given!.events.event(claim, 'Normal', EventReason.ExternalExpanding, 'after the stop');
  assert.equal(fake.writes.length, writesBeforeStop, 'nothing reached the server after the stop');
  assert.deepEqual(fake.eventsFor('default/c'), []);
  assert.equal((await given!.api.getClaim('default', 'c'))?.metadata.labels?.before, 'stop', 'reads still work');
});
