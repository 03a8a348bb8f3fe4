/**
 * The CSI plugin's snapshots against Kubernetes' own e2e CSI mock (`csi-mock`, a real gRPC driver
 * in its own process group): snapshot a volume, restore it, clone it, list, delete; what the
 * driver received is read from its call log (protojson, one line per call). Skips, saying why,
 * when the binary is not built.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { csiBinaryPath } from '../../../tools/cluster/binaries.js';
import { csiBinaryUnavailable } from '../../../tools/cluster/csi-build.js';
import { startProcess, type ManagedProcess } from '../../../tools/cluster/processes.js';
import { connectCsi } from '../../../src/csi/client.js';
import type { CsiConnection } from '../../../src/csi/types.js';
import { canSnapshot } from '../../../src/plugins/api/capabilities/snapshot.js';
import type { ProvisionRequest } from '../../../src/plugins/api/core.js';
import { createCsiPlugin, type CsiPlugin } from '../../../src/plugins/csi/index.js';
import { waitFor } from '../../helpers/wait.js';

const DRIVER = 'snap.csi.pv-controller.io';

interface CallLine {
  method: string;
  request: Record<string, unknown>;
  response: Record<string, unknown> | null;
  code: string;
}

function request(n: number): ProvisionRequest {
  return {
    backingName: `mock-dynamic-pvc-${n}`,
    clusterName: 'mock',
    pvName: `pvc-${n}`,
    claim: { name: `data-${n}`, namespace: 'team', uid: String(n), labels: {}, annotations: {} },
    requestBytes: 1073741824n,
    accessModes: ['ReadWriteOnce'],
    volumeMode: 'Filesystem',
    parameters: {},
    mountOptions: [],
  };
}

describe('CSI snapshots against the Kubernetes CSI mock', { skip: csiBinaryUnavailable('csi-mock') ?? false }, () => {
  let dir = '';
  let mock: ManagedProcess | undefined;
  let conn: CsiConnection | undefined;
  let plugin: CsiPlugin;
  const calls = (method: string): CallLine[] =>
    readFileSync(join(dir, 'csi-mock.log'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as CallLine)
      .filter((l) => l.method === `/csi.v1.Controller/${method}`);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'csi-snap-'));
    const socket = join(dir, 'csi.sock');
    mock = startProcess('csi-mock', csiBinaryPath('csi-mock'), ['--socket', socket, '--name', DRIVER], join(dir, 'csi-mock.log'), dir);
    await waitFor(() => readFileSync(join(dir, 'csi-mock.log'), 'utf8').includes('csi-mock: serving'), 'csi-mock to listen', { timeoutMs: 30_000 });
    conn = await connectCsi(socket);
    plugin = await createCsiPlugin(conn, {
      clusterName: 'mock',
      secrets: async () => undefined,
      topology: { nodeSegment: async () => undefined, allSegments: async () => [] },
      logger: pino({ level: 'silent' }),
    });
  });

  after(async () => {
    conn?.close();
    await mock?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('the mock lists CREATE_DELETE_SNAPSHOT and CLONE_VOLUME: the plugin claims snapshot and clone', () => {
    assert.ok(canSnapshot(plugin));
    assert.equal(plugin.supportsClone, true);
  });

  it('snapshot, restore, clone, list and delete: the driver saw the requests csi-snapshotter and external-provisioner send', async () => {
    assert.ok(canSnapshot(plugin));
    const source = await plugin.provision(request(1));
    const pv: PersistentVolume = { metadata: { name: 'pvc-1' }, spec: { ...source.source, accessModes: ['ReadWriteOnce'] } };
    const snapshot = { name: 'data-snap', namespace: 'team', contentName: 'snapcontent-1' };
    const info = await plugin.createSnapshot({ snapshotName: 'mock-snapshot-1', clusterName: 'mock', pv, parameters: { tier: 'cold' }, snapshot });
    const again = await plugin.createSnapshot({ snapshotName: 'mock-snapshot-1', clusterName: 'mock', pv, parameters: { tier: 'cold' }, snapshot });
    assert.equal(again.snapshotId, info.snapshotId, 'CreateSnapshot is idempotent per name');
    assert.equal(info.readyToUse, true);
    assert.equal(info.sourceVolumeId, pv.spec.csi?.volumeHandle);
    assert.deepEqual(calls('CreateSnapshot')[0].request, {
      sourceVolumeId: pv.spec.csi?.volumeHandle,
      name: 'mock-snapshot-1',
      parameters: {
        tier: 'cold',
        'csi.storage.k8s.io/volumesnapshot/name': 'data-snap',
        'csi.storage.k8s.io/volumesnapshot/namespace': 'team',
        'csi.storage.k8s.io/volumesnapshotcontent/name': 'snapcontent-1',
      },
    });

    await plugin.provisionFromSnapshot(request(2), { snapshotId: info.snapshotId, restoreSize: info.sizeBytes });
    await plugin.provisionClone(request(3), pv);
    const creates = calls('CreateVolume').filter((c) => c.code === 'OK');
    assert.deepEqual(creates.map((c) => c.request.volumeContentSource), [undefined, { snapshot: { snapshotId: info.snapshotId } }, { volume: { volumeId: pv.spec.csi?.volumeHandle } }]);

    // The mock seeds snapshots of its own: ours is among them until it is deleted.
    const lister = plugin;
    assert.ok(canSnapshot(lister));
    const listed = async (): Promise<string[]> => (await lister.listSnapshots('mock')).map((s) => s.snapshotId);
    assert.ok((await listed()).includes(info.snapshotId));
    await plugin.deleteSnapshot({ snapshotId: info.snapshotId });
    await plugin.deleteSnapshot({ snapshotId: info.snapshotId });
    assert.equal((await listed()).includes(info.snapshotId), false);
  });
});
