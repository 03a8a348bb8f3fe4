/**
 * The embedded server on SQLite: a data directory holding objects that an older version stored
 * (an unknown field nested thousands deep, a label that is a number) still lists, watches and
 * deletes, and hostile bodies sent among many innocent creates fail alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { SQLITE_FILE, SqliteStorage } from '@pv-controller/apiserver/storage/index.js';
import { api, watch } from '../http-client.js';
import { startTestCluster } from '../../../../test/helpers/cluster.js';
import { waitFor } from '../../../../test/helpers/wait.js';
import { assertControllerStillBinds, deepHostPathPv, PVS, pvBody, sendJsonText } from './hostile-helpers.js';

/** Rows written straight into the store, the way an older server left them. */
async function poisonedDataDir(): Promise<string> {
  const apiDir = await mkdtemp(join(tmpdir(), 'pvc-poisoned-'));
  const dbDir = join(apiDir, 'db');
  await mkdir(dbDir, { recursive: true });
  await SqliteStorage.open(dbDir, { logger: pino({ level: 'silent' }) }).close();
  const db = new Database(join(dbDir, SQLITE_FILE));
  const rows: Array<[string, string]> = [
    ['deep', deepHostPathPv('deep', 6000)],
    ['deep-protected', deepHostPathPv('deep-protected', 6000).replace('"metadata":{', '"metadata":{"finalizers":["kubernetes.io/pv-protection"],')],
    ['label5', JSON.stringify(pvBody('label5', {}, { labels: { a: 5, keep: 'yes' } }))],
  ];
  const insertChange = db.prepare("INSERT INTO changes (rv, type, resource, namespace, name, body, prev_rv) VALUES (?, 'ADDED', 'persistentvolumes', '', ?, ?, NULL)");
  const insertObject = db.prepare("INSERT INTO objects (resource, namespace, name, rv) VALUES ('persistentvolumes', '', ?, ?)");
  rows.forEach(([name, body], i) => {
    // What a server stores: server-set metadata, defaults and a status next to the client's fields.
    const stored = body
      .replace('"metadata":{', `"metadata":{"resourceVersion":"${i + 1}","uid":"uid-${name}","creationTimestamp":"2024-05-01T10:00:00Z","generation":1,`)
      .replace('"spec":{', '"status":{"phase":"Available"},"spec":{"volumeMode":"Filesystem",');
    insertChange.run(i + 1, name, stored);
    insertObject.run(name, i + 1);
  });
  db.close();
  return apiDir;
}

test('a data dir holding objects stored too deep or mistyped still lists, watches and deletes them, and binding goes on', async () => {
  const apiDir = await poisonedDataDir();
  const cluster = await startTestCluster({ apiServer: { storage: 'sqlite', dataDir: apiDir } });
  try {
    const server = cluster.api.server;
    const list = await api(server, 'GET', PVS);
    assert.equal(list.status, 200, list.text.slice(0, 300));
    const byName = new Map<string, { spec: { hostPath: unknown }; metadata: { labels?: unknown } }>(
      list.json.items.map((pv: { metadata: { name: string } }) => [pv.metadata.name, pv]));
    assert.deepEqual(byName.get('deep')?.spec.hostPath, { path: '/tmp/deep', type: '' });
    assert.deepEqual(byName.get('label5')?.metadata.labels, { keep: 'yes' });
    const pvWatch = await watch(server, `${PVS}?watch=true&resourceVersion=0`);
    try {
      const names = new Set<string>();
      while (names.size < 3) names.add((await pvWatch.next(10_000)).object.metadata.name);
      assert.deepEqual([...names].sort(), ['deep', 'deep-protected', 'label5']);
    } finally {
      pvWatch.close();
    }
    for (const name of ['deep', 'deep-protected', 'label5']) {
      assert.equal((await api(server, 'DELETE', `${PVS}/${name}`)).status, 200, name);
    }
    // The protected one waits for the controller to drop pv-protection (it is bound to nothing).
    await waitFor(async () => (await api(server, 'GET', `${PVS}/deep-protected`)).status === 404, 'deep-protected deleted');
    for (const name of ['deep', 'label5']) assert.equal((await api(server, 'GET', `${PVS}/${name}`)).status, 404, name);
    await assertControllerStillBinds(server);
  } finally {
    await cluster.stop();
    await rm(apiDir, { recursive: true, force: true });
  }
});

test('deep bodies sent among 200 concurrent creates on SQLite are stored without their unknown field, and so is every innocent create', async () => {
  const cluster = await startTestCluster({ apiServer: { storage: 'sqlite' } });
  try {
    const server = cluster.api.server;
    const innocent = Array.from({ length: 200 }, (_, i) => api(server, 'POST', '/api/v1/namespaces/default/persistentvolumeclaims', {
      body: {
        apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: `innocent-${i}` },
        spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'none', resources: { requests: { storage: '1Gi' } } },
      },
    }));
    const hostile = Array.from({ length: 10 }, (_, i) => sendJsonText(server, 'POST', PVS, deepHostPathPv(`hostile-${i}`, 4500)));
    const [innocents, hostiles] = await Promise.all([Promise.all(innocent), Promise.all(hostile)]);
    assert.deepEqual(innocents.filter((r) => r.status !== 201).map((r) => r.text.slice(0, 200)), []);
    assert.deepEqual([...new Set(hostiles.map((r) => r.status))], [201]);
    const pvcs = await api(server, 'GET', '/api/v1/namespaces/default/persistentvolumeclaims');
    assert.equal(pvcs.json.items.length, 200);
    const pvs = await api(server, 'GET', PVS);
    const stored = pvs.json.items.filter((pv: { metadata: { name: string } }) => pv.metadata.name.startsWith('hostile-'));
    assert.equal(stored.length, 10);
    assert.ok(stored.every((pv: { spec: { hostPath: { foo?: unknown } } }) => pv.spec.hostPath.foo === undefined));
    await assertControllerStillBinds(server);
  } finally {
    await cluster.stop();
  }
});
