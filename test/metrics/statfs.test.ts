import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { MetricsError } from '../../src/metrics/provider.js';
import { StatfsMetricsProvider } from '../../src/metrics/statfs.js';

test('statfs metrics agree with the filesystem and are internally consistent', async () => {
  const dir = await fs.mkdtemp(join(tmpdir(), 'h6-statfs-'));
  try {
    const m = await new StatfsMetricsProvider(dir).getMetrics();
    const st = await fs.statfs(dir, { bigint: true });
    assert.equal(m.capacityBytes, st.blocks * st.bsize);
    assert.equal(m.inodes, st.files);
    assert.ok(m.capacityBytes > 0n);
    assert.ok(m.availableBytes >= 0n && m.availableBytes <= m.capacityBytes);
    assert.ok(m.usedBytes >= 0n && m.usedBytes <= m.capacityBytes);
    assert.equal(m.inodesUsed + m.inodesFree, m.inodes);
    assert.ok(m.time instanceof Date);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test('statfs of a missing path rejects with a MetricsError naming it', async () => {
  const missing = join(tmpdir(), 'h6-statfs-missing-does-not-exist');
  await assert.rejects(new StatfsMetricsProvider(missing).getMetrics(), (err: unknown) => {
    assert.ok(err instanceof MetricsError);
    assert.match(err.message, /h6-statfs-missing-does-not-exist/);
    return true;
  });
});

test('statfs with an empty path rejects with a MetricsError', async () => {
  await assert.rejects(new StatfsMetricsProvider('').getMetrics(), /no path defined/);
});
