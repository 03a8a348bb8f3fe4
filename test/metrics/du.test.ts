import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { capByVolume, DuMetricsProvider } from '../../src/metrics/du.js';
import { MetricsError } from '../../src/metrics/provider.js';
import { waitFor } from '../helpers/wait.js';

/** What `du -s -x -P -B1` and `--inodes` must report: a no-follow walk, each inode once. */
async function expectedUsage(dir: string): Promise<{ bytes: bigint; inodes: bigint }> {
  const seen = new Set<string>();
  let bytes = 0n;
  const visit = async (path: string): Promise<void> => {
    const st = await fs.lstat(path, { bigint: true });
    const key = `${st.dev}:${st.ino}`;
    if (!seen.has(key)) {
      seen.add(key);
      bytes += st.blocks * 512n;
    }
    if (st.isDirectory()) for (const name of await fs.readdir(path)) await visit(join(path, name));
  };
  await visit(dir);
  return { bytes, inodes: BigInt(seen.size) };
}

function isProcessGone(pid: number): Promise<boolean> {
  // A zombie (state Z) waiting for a non-reaping init counts as gone: it runs nothing.
  return fs.readFile(`/proc/${pid}/stat`, 'utf8').then(
    (stat) => stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z'),
    () => true,
  );
}

describe('DuMetricsProvider', () => {
  let base: string;
  let vol: string;
  before(async () => {
    base = await fs.mkdtemp(join(tmpdir(), 'h6-du-'));
    vol = join(base, 'vol');
    const bigTree = join(base, 'big-outside');
    await fs.mkdir(join(vol, 'nested', 'deeper'), { recursive: true });
    await fs.mkdir(bigTree);
    await fs.writeFile(join(vol, 'small'), 'a');
    await fs.writeFile(join(vol, 'nested', 'medium'), Buffer.alloc(10_000, 1));
    await fs.writeFile(join(vol, 'nested', 'deeper', 'large'), Buffer.alloc(300_000, 2));
    await fs.link(join(vol, 'nested', 'medium'), join(vol, 'hardlink-to-medium'));
    await fs.writeFile(join(bigTree, 'huge'), Buffer.alloc(4 * 1024 * 1024, 3));
    await fs.symlink(bigTree, join(vol, 'link-to-big-tree'));
  });
  after(() => fs.rm(base, { recursive: true, force: true }));

  test('reports the exact allocated bytes and inodes of the directory, hard links once', async () => {
    const expected = await expectedUsage(vol);
    const m = await new DuMetricsProvider(vol).getMetrics();
    assert.equal(m.usedBytes, expected.bytes);
    assert.equal(m.inodesUsed, expected.inodes);
    assert.equal(m.inodesUsed, 7n, 'vol, nested, deeper, small, medium(+hardlink), large, symlink');
  });

  test('a symlink to a big tree outside the volume is not counted', async () => {
    const m = await new DuMetricsProvider(vol).getMetrics();
    assert.ok(m.usedBytes < 4n * 1024n * 1024n, `used ${m.usedBytes} includes the linked tree`);
  });

  test('capacity and availability come from the filesystem when no volume capacity is given', async () => {
    const m = await new DuMetricsProvider(vol).getMetrics();
    const st = await fs.statfs(vol, { bigint: true });
    assert.equal(m.capacityBytes, st.blocks * st.bsize);
    assert.equal(m.inodes, st.files);
    assert.ok(m.availableBytes <= m.capacityBytes);
  });

  test('a smaller volume capacity caps capacity and leaves only what is unused available', async () => {
    const expected = await expectedUsage(vol);
    const m = await new DuMetricsProvider(vol, { capacityBytes: expected.bytes + 4096n }).getMetrics();
    assert.equal(m.capacityBytes, expected.bytes + 4096n);
    assert.equal(m.availableBytes, 4096n);
  });

  test('a volume over its capacity has nothing available, never a negative number', async () => {
    const m = await new DuMetricsProvider(vol, { capacityBytes: 1n }).getMetrics();
    assert.equal(m.capacityBytes, 1n);
    assert.equal(m.availableBytes, 0n);
  });

  test('an empty path or a missing directory is a clear MetricsError', async () => {
    await assert.rejects(new DuMetricsProvider('').getMetrics(), (err: unknown) => {
      assert.ok(err instanceof MetricsError);
      assert.match(err.message, /no path defined/);
      return true;
    });
    await assert.rejects(new DuMetricsProvider(join(base, 'missing')).getMetrics(), (err: unknown) => {
      assert.ok(err instanceof MetricsError);
      assert.match(err.message, /missing" does not exist/);
      return true;
    });
  });

  test('a symlinked volume path is refused rather than measured through', async () => {
    await assert.rejects(new DuMetricsProvider(join(vol, 'link-to-big-tree')).getMetrics(), /symbolic link/);
  });

  test('a du that fails is reported with its stderr', async () => {
    const failing = join(base, 'failing-du.sh');
    await fs.writeFile(failing, '#!/bin/sh\necho "du: broken disk" >&2\nexit 1\n', { mode: 0o755 });
    await assert.rejects(new DuMetricsProvider(vol, { duCommand: failing }).getMetrics(), /broken disk/);
  });

  test('entries deleted while du walks (a volume in use) still give its total; any other complaint fails', async () => {
    const vanished = join(base, 'vanished-du.sh');
    const complaint = "du: cannot access '/v/tmp/x'\\''1': No such file or directory";
    await fs.writeFile(vanished, `#!/bin/sh\necho "12288\t$3"\necho "${complaint}" >&2\necho "du: cannot read directory '/v/gone': No such file or directory" >&2\nexit 1\n`, { mode: 0o755 });
    const m = await new DuMetricsProvider(vol, { duCommand: vanished }).getMetrics();
    assert.equal(m.usedBytes, 12288n);
    assert.equal(m.inodesUsed, 12288n);
    const denied = join(base, 'denied-du.sh');
    await fs.writeFile(denied, `#!/bin/sh\necho "12288\t$3"\necho "${complaint}" >&2\necho "du: cannot read directory '/v/private': Permission denied" >&2\nexit 1\n`, { mode: 0o755 });
    await assert.rejects(new DuMetricsProvider(vol, { duCommand: denied }).getMetrics(), /Permission denied/);
  });

  test('a du past its deadline is killed with its whole process group and reported as timed out', async () => {
    const pids = join(base, 'hanging.pids');
    const hanging = join(base, 'hanging-du.sh');
    await fs.writeFile(hanging, `#!/bin/sh\nsleep 1000 &\necho "$$ $!" > ${pids}\nwait\n`, { mode: 0o755 });
    await assert.rejects(
      new DuMetricsProvider(vol, { duCommand: hanging, timeoutMs: 1500 }).getMetrics(),
      (err: unknown) => {
        assert.ok(err instanceof MetricsError);
        assert.match(err.message, /timed out after 1500 ms/);
        return true;
      },
    );
    const [shellPid, sleepPid] = (await fs.readFile(pids, 'utf8')).trim().split(' ').map(Number);
    await waitFor(() => isProcessGone(shellPid!), `pid ${shellPid} to exit`);
    await waitFor(() => isProcessGone(sleepPid!), `pid ${sleepPid} to exit`);
  });

  test('an aborted signal stops the measurement', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(new DuMetricsProvider(vol).getMetrics(controller.signal), MetricsError);
  });
});

test('capByVolume keeps filesystem numbers when the volume capacity is larger', () => {
  assert.deepEqual(capByVolume(1000n, 300n, 50n, 5000n), { capacityBytes: 1000n, availableBytes: 300n });
  assert.deepEqual(capByVolume(1000n, 30n, 50n, 500n), { capacityBytes: 500n, availableBytes: 30n });
  assert.deepEqual(capByVolume(1000n, 300n, 50n, undefined), { capacityBytes: 1000n, availableBytes: 300n });
});
