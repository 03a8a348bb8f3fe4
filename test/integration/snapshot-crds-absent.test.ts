/**
 * A cluster without external-snapshotter's CRDs: the controller runs (binding claims as ever), its
 * snapshot module idles, and once the CRDs are installed it starts and cuts snapshots. Only on the
 * real control plane (`npm run test:cluster`): the embedded server always serves the kinds.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { defaultModules } from '../../src/controller/modules.js';
import { snapshotKindsServed } from '../../src/controller/snapshot/watch.js';
import { RestTransport } from '../../src/kube-client/transport.js';
import { onRealControlPlane } from '../helpers/control-plane.js';
import { startTestCluster } from '../helpers/cluster.js';
import { ensureSnapshotKinds } from '../helpers/snapshot-crds.js';
import { waitFor } from '../helpers/wait.js';
import { FileSnapshotPlugin, SnapshotTestApi } from './snapshot-helpers.js';

test('without the snapshot CRDs the controller binds claims and idles its snapshot module, which starts once they are installed', { skip: !onRealControlPlane() && 'the embedded server always serves the snapshot kinds' }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pvc-snapshot-crds-'));
  const plugin = new FileSnapshotPlugin(dir);
  const cluster = await startTestCluster({ plugins: [plugin], modules: defaultModules({ snapshot: { probePeriodMs: 300 } }) });
  const api = new SnapshotTestApi(cluster.kc);
  const transport = new RestTransport(cluster.kc, { qps: 0, burst: 0 });
  try {
    assert.equal(await snapshotKindsServed(transport), false, 'no CRDs yet');
    await api.boundClaim('default', 'db');
    await waitFor(async () => (await api.claim('default', 'db'))?.status?.phase === 'Bound', 'claims still bind');
    await ensureSnapshotKinds(cluster.api);
    await api.createClass('c');
    await api.createSnapshot('default', 'db-snap', { persistentVolumeClaimName: 'db' }, 'c');
    await waitFor(async () => (await api.snapshot('default', 'db-snap'))?.status?.readyToUse === true, 'snapshot ready once the CRDs are in', { timeoutMs: 60_000 });
    assert.equal((await plugin.ids()).length, 1);
  } finally {
    transport.close();
    api.close();
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
