import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { ANN_PROVISIONED_BY } from '@pv-controller/kube/annotations.js';
import { Reclaimer } from '../../../src/controller/reclaimer/index.js';
import { HOST_PATH_PROVISIONER, HostPathPlugin } from '../../../src/plugins/host-path/index.js';
import { PluginRegistry } from '../../../src/plugins/registry.js';
import { FakeCluster } from '../../helpers/fake-context.js';
import { volume } from './fixtures.js';

// kube-apiserver (and ours) refuses a hostPath containing "..", so this case is checked here, on a
// fake server without that validation, with the real host-path plugin on temp directories.
test('a host-path PV reaching out of the root through ".." is refused for Delete and Recycle; the target survives', async (t) => {
  const base = await mkdtemp(join(tmpdir(), 'pvc-hostile-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  const root = join(base, 'root');
  await mkdir(root);
  await mkdir(join(base, 'x'));
  await writeFile(join(base, 'x', 'precious.txt'), 'keep');
  const fake = new FakeCluster();
  const reclaimer = new Reclaimer({
    ctx: fake.ctx,
    plugins: new PluginRegistry([new HostPathPlugin({ roots: [root] })]),
    logger: pino({ level: 'silent' }),
  });
  for (const policy of ['Delete', 'Recycle']) {
    const name = `dotdot-${policy.toLowerCase()}`;
    fake.addVolume(volume(name, { policy, path: `${root}/../x`, annotations: { [ANN_PROVISIONED_BY]: HOST_PATH_PROVISIONER } }));
    await reclaimer.reclaimVolume(fake.ctx.volumes.get(name)!);
    await reclaimer.settled();
    const pv = fake.volume(name)!;
    assert.equal(pv.status?.phase, 'Failed');
    assert.match(pv.status?.message ?? '', /refusing path .*"\.\." component/);
    assert.equal(fake.eventsFor(name)[0].type, 'Warning');
  }
  await access(join(base, 'x', 'precious.txt'));
});
