/**
 * A grow and a provision of sized host-path volumes on one root are checked against the root's
 * capacity one at a time, as two provisions are: otherwise each sees room that only one of them
 * can have, and the root promises more than it holds. The images are stand-ins (sparse files, no
 * loop device or mount), so this runs wherever the plugin accepts sized volumes at all.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { promises as fs, statfsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { HostPathPlugin } from '../../src/plugins/host-path/index.js';
import { IMAGE_DIR, ImageVolumes, imagePathOf, imageSupportProblem } from '../../src/plugins/host-path/image-volume.js';
import type { ProvisionRequest } from '../../src/plugins/api/core.js';
import { waitFor } from '../helpers/wait.js';

const MIB = 1024 * 1024;

/** Images as sparse files; `grow` waits for the test's word after the plugin's capacity check passed. */
class HeldImages extends ImageVolumes {
  growing = false;
  private openGate: () => void = () => undefined;
  private readonly gate = new Promise<void>((resolve) => (this.openGate = resolve));

  letGrowFinish(): void {
    this.openGate();
  }
  override mountedFrom(): Promise<boolean> {
    return Promise.resolve(false);
  }
  override async ensureImage(root: string, backingName: string, bytes: bigint): Promise<void> {
    await fs.mkdir(join(root, IMAGE_DIR), { recursive: true, mode: 0o700 });
    await fs.writeFile(imagePathOf(root, backingName), '');
    await fs.truncate(imagePathOf(root, backingName), Number(bytes));
  }
  override ensureMounted(): Promise<void> {
    return Promise.resolve();
  }
  override async grow(root: string, backingName: string, _path: string, bytes: bigint): Promise<bigint> {
    this.growing = true;
    await this.gate;
    await fs.truncate(imagePathOf(root, backingName), Number(bytes));
    return bytes;
  }
}

function request(pvName: string, mib: number): ProvisionRequest {
  return {
    backingName: `kubernetes-dynamic-${pvName}`, clusterName: 'kubernetes', pvName,
    claim: { name: pvName, namespace: 'ns', uid: randomUUID(), labels: {}, annotations: {} },
    requestBytes: BigInt(mib * MIB), accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem',
    parameters: { sizing: 'image' }, mountOptions: [],
  };
}

const outcome = (p: Promise<unknown>): Promise<string> => p.then(() => 'ok', (err: Error) => err.message);

test('a sized grow and a sized provision on one root are checked one at a time: the second sees the first\'s size', { skip: imageSupportProblem() }, async () => {
  const root = await mkdtemp(join(tmpdir(), 'pvc-grow-capacity-'));
  try {
    // Scaled so the root's free space counts as 110 MiB: a 40 MiB volume may grow by 40, or a 50 MiB
    // one may be added, but not both (40 + 40 + 50 = 130).
    const st = statfsSync(root);
    const images = new HeldImages();
    const plugin = new HostPathPlugin({ roots: [root], images, overcommitRatio: (110 * MIB) / (st.bavail * st.bsize) });
    const made = await plugin.provision(request('pv-a', 40));
    const pv: PersistentVolume = { metadata: { name: 'pv-a' }, spec: { capacity: { storage: made.capacity }, ...made.source } };
    const grow = outcome(plugin.expand({ pv, sizeBytes: BigInt(80 * MIB) }));
    await waitFor(() => images.growing, 'the grow to pass its capacity check');
    let settled = false;
    const provision = outcome(plugin.provision(request('pv-b', 50))).finally(() => (settled = true));
    // Give a provision that does not wait its turn the time to finish; one that waits cannot.
    await waitFor(() => settled, 'the provision', { timeoutMs: 1_000 }).catch(() => undefined);
    images.letGrowFinish();
    assert.equal(await grow, 'ok');
    assert.match(await provision, /cannot hold 50Mi more/, `the provision ${settled ? 'did not wait for the grow' : 'waited, then'}`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
