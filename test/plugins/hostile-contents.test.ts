/**
 * A volume's own contents must never stop its delete or recycle, nor take the process's memory:
 * whatever a workload writes (a directory chain far beyond PATH_MAX, a directory of hundreds of
 * thousands of maximal-length names, names that are not UTF-8) goes with its volume, through the
 * host-path plugin, with the heap growing by a bounded amount (watched while it runs; an
 * operation that passes the bound is aborted rather than left to exhaust the process).
 */
import assert from 'node:assert/strict';
import { closeSync, openSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { HostPathPlugin } from '../../src/plugins/host-path/index.js';
import type { ProvisionRequest } from '../../src/plugins/api/core.js';
import { buildChain, chainDepth, HeapWatch, mib, removeDeepTree } from '../helpers/deep-tree.js';
import { conformanceRequest, conformanceVolume } from './conformance/subject.js';

const DEEP = 30_000;
/** Deep enough that a path per level breaks the heap bound (5,000 levels: ~690 MB before the fix), shallow enough to build quickly. */
const DEEPER_THAN_A_PATH = 5_000;
const MIB = 1024 * 1024;
/** The walk keeps a few hundred bytes per level: 30,000 levels stay far below this. */
const HEAP_BOUND = 64 * MIB;

async function exists(path: string): Promise<boolean> {
  return fs.lstat(path).then(
    () => true,
    () => false,
  );
}

/** Runs `operation` under a heap watch; returns the peak heap growth, failing past the bound. */
async function withinHeapBound(operation: (signal: AbortSignal) => Promise<void>, bound = HEAP_BOUND): Promise<number> {
  const watch = new HeapWatch(bound);
  let growth = 0;
  try {
    await operation(watch.signal);
  } finally {
    growth = watch.stop();
  }
  assert.ok(growth < bound, `heap grew by ${mib(growth)}`);
  return growth;
}

describe("a volume's own contents never stop its delete or recycle", () => {
  let base: string;
  let root: string;
  let plugin: HostPathPlugin;

  before(async () => {
    base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), 'pvc-hostile-contents-')));
    root = join(base, 'root');
    await fs.mkdir(root);
    plugin = new HostPathPlugin({ roots: [root] });
  });
  after(() => removeDeepTree(base));

  async function provisioned(): Promise<{ req: ProvisionRequest; pv: PersistentVolume; dir: string }> {
    const req = conformanceRequest(plugin);
    const pv = conformanceVolume(plugin, req, await plugin.provision(req));
    return { req, pv, dir: pv.spec.hostPath!.path };
  }

  test(`a ${DEEP.toLocaleString('en')}-deep directory chain is deleted completely with its volume, the heap growing by less than 64 MiB`, async () => {
    const { req, pv, dir } = await provisioned();
    buildChain(dir, DEEP);
    assert.equal(chainDepth(dir), DEEP);
    await withinHeapBound((signal) => plugin.delete({ backingName: req.backingName, pv, signal }));
    assert.equal(await exists(dir), false, 'the volume directory is gone');
    assert.equal(await exists(join(root, '.pv-controller', `${req.backingName}.json`)), false, 'and its record');
  });

  test(`recycle empties a ${DEEPER_THAN_A_PATH.toLocaleString('en')}-deep chain and keeps the volume directory`, async () => {
    const { pv, dir } = await provisioned();
    buildChain(dir, DEEPER_THAN_A_PATH);
    await withinHeapBound((signal) => plugin.recycle(pv, signal));
    assert.deepEqual(await fs.readdir(dir), []);
  });

  test('a directory of 100,000 entries with maximal-length names is deleted without reading it whole (heap < 16 MiB more)', async () => {
    const { req, pv, dir } = await provisioned();
    await fs.mkdir(join(dir, 'wide'));
    for (let i = 0; i < 100_000; i++) closeSync(openSync(join(dir, 'wide', String(i).padStart(255, 'n')), 'w'));
    // Read whole, the names alone are 25 MB of strings.
    await withinHeapBound((signal) => plugin.delete({ backingName: req.backingName, pv, signal }), 16 * MIB);
    assert.equal(await exists(dir), false);
  });

  test(`usage (du) of a volume holding a ${DEEPER_THAN_A_PATH.toLocaleString('en')}-deep chain counts every level`, async () => {
    const { pv, dir } = await provisioned();
    buildChain(dir, DEEPER_THAN_A_PATH);
    const usage = await plugin.metricsFor(pv).getMetrics();
    // The volume directory, every level of the chain and the file at its bottom.
    assert.equal(usage.inodesUsed, BigInt(DEEPER_THAN_A_PATH + 2));
  });

  test('names that are not UTF-8 (a file and a directory) are deleted and recycled like any other', async () => {
    const notUtf8 = (dir: string, bytes: number[]) => Buffer.concat([Buffer.from(`${dir}/`), Buffer.from(bytes)]);
    const { req, pv, dir } = await provisioned();
    await fs.mkdir(notUtf8(dir, [0xc3, 0x28]));
    await fs.writeFile(Buffer.concat([notUtf8(dir, [0xc3, 0x28]), Buffer.from('/'), Buffer.from([0xff])]), 'x');
    await fs.writeFile(notUtf8(dir, [0xfe, 0x41]), 'y');
    await plugin.recycle(pv);
    assert.deepEqual(await fs.readdir(dir), []);
    await fs.writeFile(notUtf8(dir, [0xff]), 'z');
    await plugin.delete({ backingName: req.backingName, pv });
    assert.equal(await exists(dir), false);
  });
});
