/**
 * The snapshot sub-suite (src/plugins/api/capabilities/snapshot.ts): what the snapshot controller
 * and the provisioner rely on. A snapshot is cut once per name and listed once, for its cluster
 * only; delete is idempotent; a restore or clone holds the data of its source's moment (checked
 * where the subject can write and read a volume's files); and a snapshot handle is untrusted
 * input: garbage, escaping and foreign handles are not owned, and deleting or restoring from one
 * is refused and changes nothing.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { quantityToBytes } from '@pv-controller/kube/quantity.js';
import { canSnapshot, type SnapshotRequest, type Snapshotter } from '../../../src/plugins/api/capabilities/snapshot.js';
import type { VolumePlugin } from '../../../src/plugins/api/core.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { claimed, CONFORMANCE_CLUSTER, conformanceVolume, provisionedVolume, requestFor, withSubject, type ConformanceCheck, type ConformanceSubject } from './subject.js';

type SnapshotPlugin = VolumePlugin & Snapshotter;

export function snapshotRequest(pv: PersistentVolume, clusterName = CONFORMANCE_CLUSTER, snapshotName = `conformance-snapshot-${randomUUID()}`): SnapshotRequest {
  return {
    snapshotName,
    clusterName,
    pv,
    parameters: {},
    snapshot: { name: 'snap', namespace: 'conformance-ns', contentName: `snapcontent-${randomUUID()}` },
  };
}

/** Handles no plugin may own, built around one of its own: empty, escaping, NUL, absurdly long, other drivers'. */
export function garbageHandles(own: string): string[] {
  return [
    '',
    ' ',
    '..',
    '/',
    '../../etc',
    '/etc/passwd',
    `${own}/../..`,
    `${own}/..`,
    `../${own}`,
    `/${own}`,
    `${own}\0`,
    `${own}\n`,
    ` ${own}`,
    `${own}@`,
    `${own}@..`,
    `${own}@../../x`,
    own.replace(/[^:]*$/, '..'),
    own.replace(/[^:]*$/, '../../etc'),
    'x'.repeat(10_000),
    'other.example.com/driver:snap-1',
    'snapshot-00000000-0000-0000-0000-000000000000',
  ].filter((h) => h !== own);
}

async function refused(what: string, run: () => Promise<unknown>): Promise<void> {
  await assert.rejects(run, (err: unknown) => {
    assert.ok(err instanceof PluginError, `${what}: a PluginError, got ${String(err)}`);
    assert.equal(err.retryable, false, `${what}: refused for good (${err.message})`);
    return true;
  }, `${what} must be refused`);
}

async function snapshotted(s: ConformanceSubject): Promise<{ plugin: SnapshotPlugin; pv: PersistentVolume; backingName: string; snapshotId: string; req: SnapshotRequest }> {
  const plugin = claimed(s.plugin, canSnapshot);
  const { req: provisioned, pv } = await provisionedVolume(s);
  const req = snapshotRequest(pv);
  const { snapshotId } = await plugin.createSnapshot(req);
  return { plugin, pv, backingName: provisioned.backingName, snapshotId, req };
}

async function listedIds(plugin: SnapshotPlugin, clusterName = CONFORMANCE_CLUSTER): Promise<string[]> {
  return (await plugin.listSnapshots(clusterName)).map((i) => i.snapshotId);
}

export const SNAPSHOT_SUITE: readonly ConformanceCheck[] = [
  {
    name: 'a snapshot taken twice under one name is one snapshot: same handle, listed once for its cluster only, ready, at least its source\'s size',
    run: (make) =>
      withSubject(make, async (s) => {
        const { plugin, pv, snapshotId, req } = await snapshotted(s);
        const again = await plugin.createSnapshot({ ...req, snapshot: { ...req.snapshot } });
        assert.equal(again.snapshotId, snapshotId);
        const listed = (await plugin.listSnapshots(CONFORMANCE_CLUSTER)).filter((i) => i.snapshotName === req.snapshotName);
        assert.equal(listed.length, 1, `listed ${listed.length} times`);
        assert.equal(listed[0].snapshotId, snapshotId);
        assert.equal(listed[0].readyToUse, true);
        assert.ok(listed[0].sizeBytes >= quantityToBytes(pv.spec.capacity!.storage), `sizeBytes ${listed[0].sizeBytes} < capacity ${pv.spec.capacity!.storage}`);
        assert.equal(plugin.ownsSnapshot(snapshotId), true);
        assert.equal((await listedIds(plugin, 'some-other-cluster')).includes(snapshotId), false);
      }),
  },
  {
    name: 'deleting a snapshot twice succeeds, and it is listed no more; its source volume stays',
    run: (make) =>
      withSubject(make, async (s) => {
        const { plugin, snapshotId, backingName } = await snapshotted(s);
        await plugin.deleteSnapshot({ snapshotId });
        await plugin.deleteSnapshot({ snapshotId });
        assert.equal((await listedIds(plugin)).includes(snapshotId), false);
        assert.equal(await s.backingExists(backingName), true);
      }),
  },
  {
    name: 'a volume restored from a snapshot holds the data of the snapshot moment, and a repeated restore is the same volume',
    run: (make) =>
      withSubject(make, async (s) => {
        const plugin = claimed(s.plugin, canSnapshot);
        const { pv } = await provisionedVolume(s);
        await s.writeFile?.(pv, 'data.txt', 'before');
        const { snapshotId } = await plugin.createSnapshot(snapshotRequest(pv));
        await s.writeFile?.(pv, 'data.txt', 'after');
        const req = requestFor(s, { contentSource: { kind: 'snapshot', snapshotId } });
        const restored = await plugin.provisionFromSnapshot(req, { snapshotId });
        assert.deepEqual(await plugin.provisionFromSnapshot({ ...req }, { snapshotId }), restored);
        assert.equal(await s.backingExists(req.backingName), true);
        const restoredPv = conformanceVolume(plugin, req, restored);
        if (s.readFile) {
          assert.equal(await s.readFile(restoredPv, 'data.txt'), 'before');
          assert.equal(await s.readFile(pv, 'data.txt'), 'after');
        }
        await plugin.delete({ backingName: req.backingName, pv: restoredPv });
      }),
  },
  {
    name: 'a clone holds its source\'s data, and the source keeps its own (or a plugin without clones refuses for good)',
    run: (make) =>
      withSubject(make, async (s) => {
        const plugin = claimed(s.plugin, canSnapshot);
        const { pv } = await provisionedVolume(s);
        await s.writeFile?.(pv, 'data.txt', 'source');
        const req = requestFor(s, { contentSource: { kind: 'volume', source: pv } });
        if (!plugin.supportsClone) return refused('provisionClone without supportsClone', () => plugin.provisionClone(req, pv));
        const clone = conformanceVolume(plugin, req, await plugin.provisionClone(req, pv));
        assert.equal(await s.backingExists(req.backingName), true);
        if (s.readFile && s.writeFile) {
          assert.equal(await s.readFile(clone, 'data.txt'), 'source');
          await s.writeFile(clone, 'data.txt', 'clone');
          assert.equal(await s.readFile(pv, 'data.txt'), 'source');
        }
      }),
  },
  {
    name: 'ownsSnapshot takes its own handles and refuses garbage, escaping and other instances\' handles',
    run: (make) =>
      withSubject(make, async (s) => {
        const { plugin, snapshotId } = await snapshotted(s);
        assert.equal(plugin.ownsSnapshot(snapshotId), true);
        for (const handle of garbageHandles(snapshotId)) assert.equal(plugin.ownsSnapshot(handle), false, `owns ${JSON.stringify(handle.slice(0, 80))}`);
        if (s.foreignSnapshotId) assert.equal(plugin.ownsSnapshot(s.foreignSnapshotId(snapshotId)), false);
      }),
  },
  {
    name: 'deleting a garbage, escaping or foreign handle is refused and deletes nothing',
    run: (make) =>
      withSubject(make, async (s) => {
        const { plugin, snapshotId, backingName } = await snapshotted(s);
        const handles = [...garbageHandles(snapshotId), ...(s.foreignSnapshotId ? [s.foreignSnapshotId(snapshotId)] : [])];
        for (const handle of handles) await refused(`deleteSnapshot(${JSON.stringify(handle.slice(0, 80))})`, () => plugin.deleteSnapshot({ snapshotId: handle }));
        assert.equal((await listedIds(plugin)).includes(snapshotId), true, 'the snapshot is still there');
        assert.equal(await s.backingExists(backingName), true, 'its source volume is still there');
      }),
  },
  {
    name: 'restoring from a garbage or foreign handle is refused and provisions nothing',
    run: (make) =>
      withSubject(make, async (s) => {
        const { plugin, snapshotId } = await snapshotted(s);
        const handles = ['../../etc', `${snapshotId}/..`, '', ...(s.foreignSnapshotId ? [s.foreignSnapshotId(snapshotId)] : [])];
        for (const handle of handles) {
          const req = requestFor(s, { contentSource: { kind: 'snapshot', snapshotId: handle } });
          await refused(`provisionFromSnapshot(${JSON.stringify(handle)})`, () => plugin.provisionFromSnapshot(req, { snapshotId: handle }));
          assert.equal(await s.backingExists(req.backingName), false);
        }
      }),
  },
];
