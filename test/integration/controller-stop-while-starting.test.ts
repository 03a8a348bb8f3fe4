/**
 * A controller stopped while its workers are still starting (its modules' start() pending) must
 * start nothing afterwards: a resync timer set after stop() keeps a stopped controller's process
 * alive, which is how a test suite's process lingered after all its tests had passed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ControllerModule } from '../../src/controller/runtime/module.js';
import { defaultModules } from '../../src/controller/modules.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { waitFor } from '../helpers/wait.js';

let release!: () => void;
let entered = false;
const events: string[] = [];
const held = new Promise<void>((resolve) => (release = resolve));
// A module whose start() waits until the test lets it go: the window in which stop() arrives.
const slow: ControllerModule = {
  name: 'slow-start-probe',
  create: () => ({
    start: async () => {
      entered = true;
      await held;
      events.push('start done');
    },
    stop: () => {
      events.push('stop');
    },
  }),
};

let cluster: TestCluster;
before(async () => {
  cluster = await startTestCluster({ noController: true, modules: [slow, ...defaultModules()] });
});
after(async () => {
  await cluster?.stop();
});

test('a controller stopped while its modules start sets no resync timer and starts no module afterwards', async () => {
  const controller = await cluster.startController();
  await waitFor(() => entered, 'the probe module to be starting');
  const stopped = controller.stop();
  release();
  await stopped;
  cluster.controller = undefined;
  await new Promise((r) => setImmediate(r));
  const inside = controller as unknown as { resyncTimer?: NodeJS.Timeout; modules: { stop(): Promise<void> } };
  const leaked = inside.resyncTimer;
  const order = [...events];
  // Undo what a late start left running, so that a failure fails the test instead of keeping its process alive.
  clearInterval(leaked);
  if (order.at(-1) !== 'stop') await inside.modules.stop();
  assert.equal(leaked, undefined, 'no resync timer after stop');
  assert.deepEqual(order.slice(-1), ['stop'], 'the modules are stopped after their start finished');
});
