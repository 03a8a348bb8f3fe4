import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startTestApiServer } from '../../../helpers/apiserver.js';
import { startApiServer, type RunningApiServer } from '@pv-controller/apiserver/server.js';
import { Backoff } from '../../../../src/backoff.js';
import { MergedStore } from '../../../../src/kube-client/cache/merged-store.js';
import { Reflector } from '../../../../src/kube-client/cache/reflector.js';
import { KubeApiClient } from '../../../../src/kube-client/kube-api-client.js';
import { RestTransport } from '../../../../src/kube-client/transport.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { newVolume, silentLog, waitFor } from '../../../helpers/objects.js';

test('the reflector lists, then follows creates, updates and deletes through the watch', async (t) => {
  const srv = await startTestApiServer();
  const transport = new RestTransport(srv.kc, { qps: 0, burst: 0 });
  const store = new MergedStore<PersistentVolume>();
  const reflector = new Reflector({ kind: 'PersistentVolume', path: '/api/v1/persistentvolumes', store, transport, log: silentLog });
  t.after(async () => {
    await reflector.stop();
    transport.close();
    await srv.stop();
  });
  const api = new KubeApiClient(transport);
  await api.createVolume(newVolume('before'));
  reflector.start();
  await waitFor(() => reflector.hasSynced(), 'initial list');
  assert.ok(store.get('before'));
  const created = await api.createVolume(newVolume('after'));
  await waitFor(() => store.get('after') !== undefined, 'ADDED through the watch');
  await api.updateVolume({ ...created, metadata: { ...created.metadata, labels: { tier: 'gold' } } });
  await waitFor(() => store.get('after')?.metadata.labels?.tier === 'gold', 'MODIFIED through the watch');
  const current = store.get('after')!;
  await api.updateVolume({ ...current, metadata: { ...current.metadata, finalizers: [] } });
  await api.deleteVolume('after');
  await waitFor(() => store.get('after') === undefined, 'DELETED through the watch');
  assert.equal(reflector.counts.lists, 1, 'no re-list needed');
});

test('a watch resumed from a resourceVersion older than the server keeps ends in a re-list that catches up', async (t) => {
  const srv = await startTestApiServer({ retainChanges: 2 });
  const transport = new RestTransport(srv.kc, { qps: 0, burst: 0 });
  const store = new MergedStore<PersistentVolume>();
  // Reconnect after 200 ms of silence, then wait 1.5 s: time for the test to outrun the history.
  const reflector = new Reflector({
    kind: 'PersistentVolume',
    path: '/api/v1/persistentvolumes',
    store,
    transport,
    log: silentLog,
    inactivityTimeoutMs: 200,
    backoff: new Backoff({ initialMs: 1500, maxMs: 1500 }),
  });
  t.after(async () => {
    await reflector.stop();
    transport.close();
    await srv.stop();
  });
  const api = new KubeApiClient(transport);
  reflector.start();
  await waitFor(() => reflector.hasSynced(), 'initial list');
  await api.createVolume(newVolume('first'));
  await waitFor(() => reflector.counts.inactive >= 1, 'the watch to go quiet and drop');
  for (let i = 0; i < 6; i++) await api.createVolume(newVolume(`burst-${i}`));
  await waitFor(() => reflector.counts.expired >= 1, 'a 410 on resuming the watch');
  await waitFor(() => store.get('burst-5') !== undefined, 're-listed objects');
  assert.ok(reflector.counts.lists >= 2);
  assert.equal(store.size(), 7);
});

test('the reflector keeps retrying while the server is down and syncs once it is back', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'reflector-restart-'));
  const first = await startApiServer({ storage: 'memory', listen: '127.0.0.1:0', dataDir, logger: silentLog });
  const kc = new KubeConfig();
  kc.loadFromFile(first.kubeconfigPath);
  const port = first.port;
  await first.stop();
  const transport = new RestTransport(kc, { qps: 0, burst: 0 });
  const store = new MergedStore<PersistentVolume>();
  const reflector = new Reflector({
    kind: 'PersistentVolume',
    path: '/api/v1/persistentvolumes',
    store,
    transport,
    log: silentLog,
    backoff: new Backoff({ initialMs: 20, maxMs: 50 }),
  });
  const restarted: { server?: RunningApiServer } = {};
  t.after(async () => {
    await reflector.stop();
    transport.close();
    await restarted.server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  reflector.start();
  await waitFor(() => reflector.counts.errors >= 3, 'several failed lists');
  assert.equal(reflector.hasSynced(), false);
  restarted.server = await startApiServer({ storage: 'memory', listen: `127.0.0.1:${port}`, dataDir, logger: silentLog });
  await waitFor(() => reflector.hasSynced(), 'a successful list after the restart');
  await new KubeApiClient(transport).createVolume(newVolume('after-restart'));
  await waitFor(() => store.get('after-restart') !== undefined, 'the watch to follow the new server');
});

test('the reflector pages through the generated list call and starts its watch from the list', async (t) => {
  const srv = await startTestApiServer();
  const transport = new RestTransport(srv.kc, { qps: 0, burst: 0 });
  const store = new MergedStore<PersistentVolume>();
  const reflector = new Reflector({ kind: 'PersistentVolume', path: '/api/v1/persistentvolumes', store, transport, log: silentLog, pageSize: 2 });
  t.after(async () => {
    await reflector.stop();
    transport.close();
    await srv.stop();
  });
  const api = new KubeApiClient(transport);
  for (let i = 0; i < 5; i++) await api.createVolume(newVolume(`paged-${i}`));
  reflector.start();
  await waitFor(() => reflector.hasSynced(), 'initial list');
  assert.equal(store.size(), 5);
  assert.equal(transport.counters.snapshot().list?.requests, 3, 'three pages of at most two');
  assert.equal(typeof store.get('paged-0')?.metadata.creationTimestamp, 'string');
  await api.createVolume(newVolume('paged-after'));
  await waitFor(() => store.get('paged-after') !== undefined, 'ADDED through the watch');
  assert.equal(reflector.counts.lists, 1);
});

test('a reflector for a collection without a generated list call is refused at construction', (t) => {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: false }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  const transport = new RestTransport(kc, { qps: 0, burst: 0 });
  t.after(() => transport.close());
  assert.throws(
    () => new Reflector({ kind: 'ConfigMap', path: '/api/v1/configmaps', store: new MergedStore(), transport, log: silentLog }),
    /no generated list call for \/api\/v1\/configmaps/,
  );
});
