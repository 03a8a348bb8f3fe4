/**
 * On a cluster without the snapshot CRDs the module says so once, stays idle, asks again each
 * period, and starts its informers (after its key loads) once the kinds are served.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { NotFoundError } from '@pv-controller/kube/errors.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import type { RequestSpec } from '../../../src/kube-client/transport.js';
import type { MergedStore } from '../../../src/kube-client/cache/merged-store.js';
import { makeSnapshotStores } from '../../../src/controller/snapshot/api.js';
import { SnapshotWatch } from '../../../src/controller/snapshot/watch.js';
import type { InformerFactory } from '../../../src/controller/runtime/module.js';
import { waitFor } from '../../helpers/wait.js';

function recordingLog(lines: string[]) {
  return pino({ level: 'info' }, { write: (line: string) => void lines.push((JSON.parse(line) as { msg: string }).msg) });
}

function discovery(served: { now: boolean }, asked: string[]) {
  return {
    request: async <T>(spec: RequestSpec): Promise<T> => {
      asked.push(spec.path);
      if (!served.now) throw new NotFoundError({ name: spec.path });
      return { resources: [{ name: 'volumesnapshots' }, { name: 'volumesnapshotcontents' }, { name: 'volumesnapshotclasses' }, { name: 'volumesnapshots/status' }] } as T;
    },
  };
}

function fakeInformers(started: string[]): InformerFactory {
  return <T extends KubeObject>(spec: { kind: string; path: string; store: MergedStore<T> }) => ({
    start: () => {
      started.push(spec.kind);
      spec.store.replaceAll([], '1');
    },
    stop: async () => undefined,
    hasSynced: () => spec.store.hasSynced(),
  });
}

test('without the snapshot kinds the module logs once, stays idle, and starts when they appear', async () => {
  const lines: string[] = [];
  const asked: string[] = [];
  const started: string[] = [];
  const served = { now: false };
  let prepared = 0;
  let ready = 0;
  const watch = new SnapshotWatch(discovery(served, asked), fakeInformers(started), makeSnapshotStores(), recordingLog(lines), 20, {
    prepare: async () => ++prepared > 0,
    ready: () => void ready++,
  });
  watch.start();
  try {
    await waitFor(() => asked.length >= 4, 'several probes while the kinds are absent');
    assert.equal(lines.filter((l) => /not served/.test(l)).length, 1, 'said once');
    assert.deepEqual(started, [], 'idle: no informer');
    assert.equal(prepared, 0, 'no key loaded (no Secret made) while the kinds are absent');
    served.now = true;
    await waitFor(() => ready === 1, 'started once served');
    assert.deepEqual(started.sort(), ['VolumeSnapshot', 'VolumeSnapshotClass', 'VolumeSnapshotContent']);
    assert.ok(asked.every((p) => p === '/apis/snapshot.storage.k8s.io/v1'));
  } finally {
    await watch.stop();
  }
});

test('a key that cannot be loaded yet keeps the informers stopped until a later probe succeeds', async () => {
  const started: string[] = [];
  let attempts = 0;
  let ready = 0;
  const watch = new SnapshotWatch(discovery({ now: true }, []), fakeInformers(started), makeSnapshotStores(), pino({ level: 'silent' }), 20, {
    prepare: async () => ++attempts >= 3,
    ready: () => void ready++,
  });
  watch.start();
  try {
    await waitFor(() => ready === 1, 'started after the key loaded');
    assert.equal(attempts, 3);
    assert.equal(started.length, 3, 'informers made once');
  } finally {
    await watch.stop();
  }
});
