/**
 * A real crash while a snapshot is being cut: the controller runs in a child process and is
 * killed with SIGKILL after the backend made the snapshot and before its answer was recorded. The
 * content carries the intent (`volumesnapshot-being-created`); the next controller repeats the
 * create under the same name and records the one snapshot the first call made. Never a second.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { ANN_SNAPSHOT_BEING_CREATED } from '@pv-controller/kube/snapshot-types.js';
import { defaultModules } from '../../src/controller/modules.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { ensureSnapshotKinds } from '../helpers/snapshot-crds.js';
import { waitFor } from '../helpers/wait.js';
import { FileSnapshotPlugin, SnapshotTestApi } from './snapshot-helpers.js';

const CHILD = fileURLToPath(new URL('./snapshot-child.js', import.meta.url));
const cleanups: Array<() => Promise<void>> = [];

after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function killGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  process.kill(-child.pid!, 'SIGKILL');
  await once(child, 'exit');
}

test('a controller killed between the backend call and its record, restarted, leaves exactly one backend snapshot', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pvc-snapshot-kill-'));
  const plugin = new FileSnapshotPlugin(dir);
  const cluster: TestCluster = await startTestCluster({ plugins: [plugin], noController: true, modules: defaultModules({ snapshot: { probePeriodMs: 200 } }) });
  const api = new SnapshotTestApi(cluster.kc);
  cleanups.push(async () => {
    api.close();
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  });
  await ensureSnapshotKinds(cluster.api);
  const child = spawn(process.execPath, [CHILD, cluster.api.controllerKubeconfigPath, dir], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => killGroup(child));
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => void (out += chunk.toString()));
  await waitFor(() => out.includes('ready\n'), 'the child controller ready');

  await api.createClass('c');
  await api.boundClaim('default', 'db');
  await waitFor(async () => (await api.claim('default', 'db'))?.status?.phase === 'Bound', 'claim bound');
  const vs = await api.createSnapshot('default', 'db-snap', { persistentVolumeClaimName: 'db' }, 'c');
  const cut = await waitFor(() => /cut (\S+)\n/.exec(out)?.[1], 'the backend snapshot cut');
  const contentName = `snapcontent-${vs.metadata.uid}`;
  const inFlight = (await api.content(contentName))!;
  assert.equal(inFlight.metadata.annotations?.[ANN_SNAPSHOT_BEING_CREATED], 'yes', 'the intent was recorded before the call');
  assert.equal(inFlight.status?.snapshotHandle, undefined, 'the answer was not');
  await killGroup(child);

  await cluster.startController();
  const ready = await waitFor(async () => {
    const s = await api.snapshot('default', 'db-snap');
    return s?.status?.readyToUse === true && s;
  }, 'snapshot ready after the restart');
  const content = (await api.content(contentName))!;
  assert.equal(content.status?.snapshotHandle, cut, 'the snapshot the killed call made');
  assert.equal(content.metadata.annotations?.[ANN_SNAPSHOT_BEING_CREATED], undefined);
  assert.equal(ready.status?.boundVolumeSnapshotContentName, contentName);
  assert.deepEqual(await plugin.ids(), [cut], 'exactly one backend snapshot');
});
