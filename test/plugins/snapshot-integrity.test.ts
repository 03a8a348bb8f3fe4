/**
 * Data integrity of directory snapshots (plain host-path and nfs-subdir volumes): files with
 * known checksums of several sizes, a sparse file, symlinks (one pointing out of the volume),
 * hard links, a FIFO, names that are not UTF-8, owners and modes; snapshot, then change and
 * delete files; the restored volume holds exactly the snapshot moment's data and a clone the
 * source's current data. Also: a killed attempt's temporaries are redone, snapshots are never
 * orphans, strays or volumes, and a deep tree is copied with bounded memory.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { CopyReport } from '../../src/plugins/fs-common/directory-snapshots.js';
import { SNAPSHOT_DIR } from '../../src/plugins/fs-common/snapshot-area.js';
import { HostPathPlugin, volumePath } from '../../src/plugins/host-path/index.js';
import { NfsSubdirPlugin } from '../../src/plugins/nfs-subdir/index.js';
import { PluginError } from '../../src/plugins/api/errors.js';
import { buildChain, chainDepth, HeapWatch, mib, removeDeepTree } from '../helpers/deep-tree.js';
import { treeManifest } from '../helpers/tree-manifest.js';
import { conformanceRequest, conformanceVolume } from './conformance/subject.js';
import { snapshotRequest } from './conformance/snapshot.js';

const MIB = 1024 * 1024;
const isRoot = process.getuid?.() === 0;

async function exists(path: string): Promise<boolean> {
  return fs.lstat(path).then(() => true, () => false);
}

/** Fills a volume with the hostile-but-legal contents the tests compare. */
async function fill(dir: string, outside: string): Promise<void> {
  for (const [name, bytes] of [['empty', 0], ['one', 1], ['block', 4096], ['odd', 4095], ['mib-plus', MIB + 7], ['five-mib', 5 * MIB]] as const) {
    await fs.writeFile(join(dir, name), randomBytes(bytes));
  }
  const sparse = await fs.open(join(dir, 'sparse.img'), 'w');
  await sparse.write(Buffer.from('head'), 0, 4, 0);
  await sparse.write(Buffer.from('middle'), 0, 6, 32 * MIB);
  await sparse.truncate(64 * MIB);
  await sparse.close();
  await fs.mkdir(join(dir, 'nested', 'deeper'), { recursive: true });
  await fs.writeFile(join(dir, 'nested', 'deeper', 'leaf.txt'), 'leaf');
  await fs.symlink('nested/deeper/leaf.txt', join(dir, 'relative-link'));
  await fs.symlink(join(outside, 'decoy.txt'), join(dir, 'escaping-link'));
  await fs.symlink('/nonexistent/target', join(dir, 'dangling-link'));
  await fs.writeFile(join(dir, 'linked-a'), 'shared by two names');
  await fs.link(join(dir, 'linked-a'), join(dir, 'nested', 'linked-b'));
  await fs.writeFile(Buffer.concat([Buffer.from(`${dir}/`), Buffer.from([0xc3, 0x28, 0xff])]), 'not utf-8');
  await fs.writeFile(join(dir, 'private.txt'), 'mode 0640');
  await fs.chmod(join(dir, 'private.txt'), 0o640);
  await fs.chmod(join(dir, 'nested'), 0o750);
  if (isRoot) await fs.lchown(join(dir, 'private.txt'), 1234, 4321);
  if (isRoot) await fs.chown(join(dir, 'nested', 'deeper'), 2345, 5432);
  execFileSync('mkfifo', [join(dir, 'a-fifo')]);
}

/** The changes made after the snapshot. */
async function change(dir: string): Promise<void> {
  await fs.writeFile(join(dir, 'one'), 'changed');
  await fs.rm(join(dir, 'five-mib'));
  await fs.rm(join(dir, 'nested'), { recursive: true });
  await fs.writeFile(join(dir, 'added-later'), 'new');
  await fs.rm(join(dir, 'relative-link'));
  await fs.symlink('one', join(dir, 'relative-link'));
}

function withoutFifo(manifest: Map<string, { type: string }>): Map<string, unknown> {
  return new Map([...manifest].filter(([, e]) => e.type !== 'other'));
}

describe('directory snapshots hold exactly the snapshot moment (host-path, plain directories)', () => {
  let base: string;
  let root: string;
  let outside: string;
  let plugin: HostPathPlugin;
  const reports: CopyReport[] = [];

  before(async () => {
    base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), 'pvc-snap-integrity-')));
    root = join(base, 'root');
    outside = join(base, 'outside');
    await fs.mkdir(root);
    await fs.mkdir(outside);
    await fs.writeFile(join(outside, 'decoy.txt'), 'outside the volume');
    plugin = new HostPathPlugin({ roots: [root], onCopy: (r) => reports.push(r) });
  });
  after(() => removeDeepTree(base));

  async function provisioned(): Promise<{ pv: PersistentVolume; dir: string; backingName: string }> {
    const req = conformanceRequest(plugin, { requestBytes: 2n * 1024n * 1024n * 1024n });
    const pv = conformanceVolume(plugin, req, await plugin.provision(req));
    return { pv, dir: volumePath(pv)!, backingName: req.backingName };
  }

  test('snapshot, change, restore and clone: sha256 per file, links kept as links, modes and owners, the sparse file still sparse', async () => {
    const source = await provisioned();
    await fill(source.dir, outside);
    const atSnapshot = await treeManifest(source.dir);
    const info = await plugin.createSnapshot(snapshotRequest(source.pv));
    assert.equal(info.sizeBytes, 2n * 1024n * 1024n * 1024n, "a snapshot's size is its source's capacity");
    const snapshotReport = reports.at(-1)!;
    assert.equal(snapshotReport.operation, 'snapshot');
    assert.equal(snapshotReport.stats.skippedSpecial, 1, 'the FIFO is not copied');
    assert.equal(snapshotReport.stats.hardLinks, 1);
    assert.ok(snapshotReport.stats.copiedBytes + snapshotReport.stats.reflinkedBytes < BigInt(8 * MIB), 'the sparse file\'s holes are not copied as data');

    await change(source.dir);
    const changed = await treeManifest(source.dir);

    const restoreReq = conformanceRequest(plugin, { contentSource: { kind: 'snapshot', snapshotId: info.snapshotId } });
    const restored = volumePath(conformanceVolume(plugin, restoreReq, await plugin.provisionFromSnapshot(restoreReq, { snapshotId: info.snapshotId })))!;
    assert.deepEqual(await treeManifest(restored), withoutFifo(atSnapshot));
    assert.equal(await fs.readlink(join(restored, 'escaping-link')), join(outside, 'decoy.txt'), 'the escaping link is a link, not its target');
    const [a, b] = await Promise.all([fs.stat(join(restored, 'linked-a')), fs.stat(join(restored, 'nested', 'linked-b'))]);
    assert.equal(a.ino, b.ino, 'hard links stay one file');
    const sparse = await fs.stat(join(restored, 'sparse.img'));
    assert.equal(sparse.size, 64 * MIB);
    assert.ok(sparse.blocks * 512 < MIB, `the restored sparse file has ${sparse.blocks * 512} bytes allocated`);
    if (isRoot) assert.deepEqual([(await fs.stat(join(restored, 'private.txt'))).uid, (await fs.stat(join(restored, 'private.txt'))).gid], [1234, 4321]);

    const cloneReq = conformanceRequest(plugin);
    const clone = volumePath(conformanceVolume(plugin, cloneReq, await plugin.provisionClone(cloneReq, source.pv)))!;
    assert.deepEqual(await treeManifest(clone), withoutFifo(changed));
    assert.equal(await fs.readFile(join(outside, 'decoy.txt'), 'utf8'), 'outside the volume');
  });

  test('a killed attempt\'s temporaries (snapshot and restore) are removed and the work redone', async () => {
    const source = await provisioned();
    await fs.writeFile(join(source.dir, 'data.txt'), 'complete');
    const req = snapshotRequest(source.pv);
    const leftover = join(root, SNAPSHOT_DIR, `.tmp.${req.snapshotName}.deadbeef`);
    await fs.mkdir(join(leftover, 'data'), { recursive: true });
    await fs.writeFile(join(leftover, 'data', 'half.txt'), 'half');
    const { snapshotId } = await plugin.createSnapshot(req);
    assert.equal(await exists(leftover), false);
    const restoreReq = conformanceRequest(plugin);
    const restoreLeftover = join(root, SNAPSHOT_DIR, `.restore.${restoreReq.backingName}.0badc0de`);
    await fs.mkdir(restoreLeftover);
    await fs.writeFile(join(restoreLeftover, 'half.txt'), 'half');
    const restored = volumePath(conformanceVolume(plugin, restoreReq, await plugin.provisionFromSnapshot(restoreReq, { snapshotId })))!;
    assert.deepEqual(await fs.readdir(restored), ['data.txt']);
    assert.equal(await exists(restoreLeftover), false);
  });

  test('a copy aborted midway leaves no snapshot, and the next attempt makes a complete one', async () => {
    const source = await provisioned();
    for (let i = 0; i < 200; i++) await fs.writeFile(join(source.dir, `f${i}`), `file ${i}`);
    const req = snapshotRequest(source.pv);
    const abort = new AbortController();
    abort.abort(new Error('controller shutting down'));
    await assert.rejects(plugin.createSnapshot({ ...req, signal: abort.signal }));
    assert.equal((await plugin.listSnapshots(req.clusterName)).some((s) => s.snapshotName === req.snapshotName), false);
    const { snapshotId } = await plugin.createSnapshot(req);
    const restoreReq = conformanceRequest(plugin);
    const restored = volumePath(conformanceVolume(plugin, restoreReq, await plugin.provisionFromSnapshot(restoreReq, { snapshotId })))!;
    assert.equal((await fs.readdir(restored)).length, 200);
  });

  test('snapshots are never backing volumes, orphans or stray files, and a PV pointing into the snapshot area is refused', async () => {
    const source = await provisioned();
    const req = snapshotRequest(source.pv);
    const { snapshotId } = await plugin.createSnapshot(req);
    const listed = await plugin.listBackingVolumes(req.clusterName);
    assert.equal(listed.some((v) => v.id.includes(SNAPSHOT_DIR)), false);
    assert.deepEqual(await plugin.listStrayFiles(), []);
    assert.deepEqual(await plugin.removeStrayFiles(), []);
    const intoArea: PersistentVolume = { ...source.pv, metadata: { name: 'pv-hostile' }, spec: { hostPath: { path: join(root, SNAPSHOT_DIR, req.snapshotName, 'data') } } };
    await assert.rejects(plugin.delete({ backingName: 'data', pv: intoArea }), (err: unknown) => err instanceof PluginError && err.code === 'Unsafe');
    assert.equal((await plugin.listSnapshots(req.clusterName)).some((s) => s.snapshotId === snapshotId), true);
  });

  test('a volume is deleted even when its snapshot area was replaced by a symlink, and nothing behind the link is touched', async () => {
    const own = await fs.realpath(await fs.mkdtemp(join(tmpdir(), 'pvc-snap-area-link-')));
    try {
      const ownRoot = join(own, 'root');
      const decoys = join(own, 'decoys');
      await fs.mkdir(ownRoot);
      await fs.mkdir(decoys);
      const local = new HostPathPlugin({ roots: [ownRoot] });
      const req = conformanceRequest(local);
      const pv = conformanceVolume(local, req, await local.provision(req));
      const decoy = join(decoys, `.restore.${req.backingName}.deadbeef`);
      await fs.mkdir(decoy);
      await fs.writeFile(join(decoy, 'keep.txt'), 'decoy');
      await fs.symlink(decoys, join(ownRoot, SNAPSHOT_DIR));
      await local.delete({ backingName: req.backingName, pv });
      assert.equal(await exists(volumePath(pv)!), false, 'the volume is gone');
      assert.equal(await fs.readFile(join(decoy, 'keep.txt'), 'utf8'), 'decoy');
    } finally {
      await fs.rm(own, { recursive: true, force: true });
    }
  });

  test('a 5,000-deep directory chain is snapshotted and restored whole, the heap growing by less than 64 MiB', async () => {
    const source = await provisioned();
    buildChain(source.dir, 5_000);
    const watch = new HeapWatch(64 * MIB);
    let growth = 0;
    let restored = '';
    try {
      const { snapshotId } = await plugin.createSnapshot({ ...snapshotRequest(source.pv), signal: watch.signal });
      const restoreReq = { ...conformanceRequest(plugin), signal: watch.signal };
      restored = volumePath(conformanceVolume(plugin, restoreReq, await plugin.provisionFromSnapshot(restoreReq, { snapshotId })))!;
    } finally {
      growth = watch.stop();
    }
    assert.ok(growth < 64 * MIB, `heap grew by ${mib(growth)}`);
    assert.equal(chainDepth(restored), 5_000);
  });
});

describe('nfs-subdir snapshots restore the snapshot moment into a pathPattern directory', () => {
  let mountPath: string;
  before(async () => {
    mountPath = await fs.realpath(await fs.mkdtemp(join(tmpdir(), 'pvc-snap-nfs-')));
  });
  after(() => fs.rm(mountPath, { recursive: true, force: true }));

  test('restore and clone through a pattern parent hold the right data; the area is refused as a pattern', async () => {
    const plugin = new NfsSubdirPlugin({ mounts: [{ server: 'nfs', share: '/exports', mountPath }] });
    const parameters = { pathPattern: '${.PVC.namespace}/${.PVC.name}' };
    const req = conformanceRequest(plugin, { parameters });
    const pv = conformanceVolume(plugin, req, await plugin.provision(req));
    const local = (v: PersistentVolume): string => join(mountPath, v.spec.nfs!.path.slice('/exports/'.length));
    await fs.writeFile(join(local(pv), 'data.txt'), 'before');
    const { snapshotId } = await plugin.createSnapshot(snapshotRequest(pv));
    await fs.writeFile(join(local(pv), 'data.txt'), 'after');
    const restoreReq = conformanceRequest(plugin, { parameters });
    const restored = conformanceVolume(plugin, restoreReq, await plugin.provisionFromSnapshot(restoreReq, { snapshotId }));
    assert.equal(await fs.readFile(join(local(restored), 'data.txt'), 'utf8'), 'before');
    assert.match(restored.spec.nfs!.path, /^\/exports\/conformance-ns\/data\/conformance-dynamic-/);
    const cloneReq = conformanceRequest(plugin, { parameters });
    const clone = conformanceVolume(plugin, cloneReq, await plugin.provisionClone(cloneReq, pv));
    assert.equal(await fs.readFile(join(local(clone), 'data.txt'), 'utf8'), 'after');
    const hostile = conformanceRequest(plugin, { parameters: { pathPattern: '${.PVC.labels.team}' }, claim: { ...req.claim, labels: { team: SNAPSHOT_DIR } } });
    await assert.rejects(plugin.provision(hostile), /reserved/);
  });
});
