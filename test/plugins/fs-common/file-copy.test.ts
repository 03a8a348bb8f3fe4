import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { copyOpenFile, ReflinkState } from '../../../src/plugins/fs-common/file-copy.js';

const MIB = 1024 * 1024;

describe('copying one file for a snapshot', () => {
  let dir: string;
  before(async () => {
    dir = await fs.mkdtemp(join(tmpdir(), 'pvc-file-copy-'));
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  async function copy(name: string, reflink = new ReflinkState()) {
    const source = await fs.open(join(dir, name), 'r');
    try {
      const stats = await copyOpenFile(source, await source.stat({ bigint: true }), join(dir, `${name}.copy`), { reflink });
      return { stats, reflink };
    } finally {
      await source.close();
    }
  }

  test('zero blocks become holes: a sparse file stays sparse, its data byte for byte the same', async () => {
    const handle = await fs.open(join(dir, 'sparse'), 'w');
    const data = randomBytes(100_000);
    await handle.write(data, 0, data.length, 10 * MIB);
    await handle.truncate(40 * MIB);
    await handle.close();
    const { stats } = await copy('sparse');
    const [a, b] = await Promise.all([fs.readFile(join(dir, 'sparse')), fs.readFile(join(dir, 'sparse.copy'))]);
    assert.equal(b.length, 40 * MIB);
    assert.ok(a.equals(b));
    if (stats.reflinkedBytes === 0n) {
      assert.ok(stats.copiedBytes < BigInt(MIB), `copied ${stats.copiedBytes} bytes`);
      assert.ok((await fs.stat(join(dir, 'sparse.copy'))).blocks * 512 < MIB);
    }
  });

  test('a file whose size is not a whole block, and an empty file, are copied exactly', async () => {
    await fs.writeFile(join(dir, 'odd'), randomBytes(3 * MIB + 17));
    await fs.writeFile(join(dir, 'empty'), '');
    await copy('odd');
    await copy('empty');
    assert.ok((await fs.readFile(join(dir, 'odd'))).equals(await fs.readFile(join(dir, 'odd.copy'))));
    assert.equal((await fs.stat(join(dir, 'empty.copy'))).size, 0);
  });

  test('an existing destination is never overwritten (exclusive create)', async () => {
    await fs.writeFile(join(dir, 'kept'), 'source');
    await fs.writeFile(join(dir, 'kept.copy'), 'already here');
    await assert.rejects(copy('kept', new ReflinkState(false)), /EEXIST/);
    assert.equal(await fs.readFile(join(dir, 'kept.copy'), 'utf8'), 'already here');
  });
});
