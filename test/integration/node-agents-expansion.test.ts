/**
 * Node agents grow their own sized volumes, end to end: the embedded server, the central
 * controller and two agents in a private mount namespace with the system read-only
 * (agent-expansion-child.ts), real loop devices and ext4. Skipped, saying why, where that
 * namespace or the tools cannot be had (as the plugin's sized-volume tests are).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { imageSupportProblem } from '../../src/plugins/host-path/image-volume.js';
import { NODE_HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { mountNamespaceSkipReason, runInMountNamespace } from '../helpers/mount-namespace.js';

const CHILD = fileURLToPath(new URL('./agent-expansion-child.js', import.meta.url));
const skip = mountNamespaceSkipReason() ?? imageSupportProblem();

describe('a node agent grows its sized volume (sizing: image) when its claim is patched', { skip }, () => {
  let r: Record<string, unknown>;
  before(async () => {
    r = await runInMountNamespace<Record<string, unknown>>(CHILD, [], 240_000);
    assert.equal(r.error, undefined, String(r.error));
  });

  test('the claim, its PV and the mounted filesystem move from 20Mi to 40Mi, the data written before is still there and the new room is writable', () => {
    const before = r.before as { capacityMiB: number; tooMuch: string };
    assert.equal(before.tooMuch, 'ENOSPC', 'the volume held its first size');
    assert.ok(before.capacityMiB > 15 && before.capacityMiB <= 20, `filesystem ${before.capacityMiB} MiB before`);
    assert.equal(r.underN1, true);
    assert.deepEqual([r.pvCapacity, r.allocated, r.resizeStatus, r.conditions], ['40Mi', '40Mi', null, []]);
    assert.ok((r.capacityMiB as number) > 35 && (r.capacityMiB as number) <= 40, `filesystem ${String(r.capacityMiB)} MiB after`);
    assert.equal(r.kept, 'written before the claim grew');
    assert.equal(r.moreFits, 'ok');
  });

  test('the agent of n1 grew it, once: it is the claim\'s storage-resizer, one Resizing and one VolumeResizeSuccessful, no ExternalExpanding from the central controller', () => {
    assert.equal(r.resizer, NODE_HOST_PATH_PROVISIONER);
    assert.deepEqual(r.events, ['Resizing×1', 'VolumeResizeSuccessful×1']);
  });

  test('deleting the claim removes the image on n1; n2 never held anything', () => {
    assert.deepEqual([r.imagesLeft, r.n2Left], [[], []]);
  });
});
