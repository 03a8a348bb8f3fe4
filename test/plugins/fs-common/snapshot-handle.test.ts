import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { isSnapshotName, SnapshotHandles } from '../../../src/plugins/fs-common/snapshot-handle.js';

describe('file plugins snapshot handles', () => {
  const central = new SnapshotHandles('host-path', undefined);
  const nodeA = new SnapshotHandles('host-path', 'node-a.example');

  test('a handle names the kind, the version, the snapshot and (node-local) the node, and parses back', () => {
    assert.equal(central.format('kubernetes-snapshot-1'), 'host-path:snap:v1:kubernetes-snapshot-1');
    assert.equal(nodeA.format('kubernetes-snapshot-1'), 'host-path:snap:v1:kubernetes-snapshot-1@node-a.example');
    assert.deepEqual(nodeA.parse('host-path:snap:v1:kubernetes-snapshot-1@node-a.example'), { kind: 'host-path', snapshotName: 'kubernetes-snapshot-1', node: 'node-a.example' });
  });

  test('a plugin owns only its own kind and its own node: a central plugin no node-local handle, a node agent no other node\'s', () => {
    assert.equal(central.owns('host-path:snap:v1:s'), true);
    assert.equal(central.owns('host-path:snap:v1:s@node-a.example'), false);
    assert.equal(nodeA.owns('host-path:snap:v1:s@node-a.example'), true);
    assert.equal(nodeA.owns('host-path:snap:v1:s@node-b'), false);
    assert.equal(nodeA.owns('host-path:snap:v1:s'), false);
    assert.equal(central.owns('nfs-subdir:snap:v1:s'), false);
  });

  for (const handle of ['host-path:snap:v1:..', 'host-path:snap:v1:../x', 'host-path:snap:v1:a/b', 'host-path:snap:v1:.hidden', 'host-path:snap:v1:a..b', 'host-path:snap:v1:a\0', 'host-path:snap:v1:', 'host-path:snap:v2:a', 'host-path:snap:v1:a@', 'host-path:snap:v1:a@Node_B', 'host-path:snap:v1:a@b@c', `host-path:snap:v1:${'a'.repeat(231)}`, 'HOST-PATH:snap:v1:a', ' host-path:snap:v1:a']) {
    test(`${JSON.stringify(handle.slice(0, 60))} is no handle: not owned, and nameOf refuses it for good`, () => {
      assert.equal(central.parse(handle), undefined);
      assert.equal(central.owns(handle), false);
      assert.throws(() => central.nameOf(handle, 'deleting'), (err: unknown) => err instanceof PluginError && err.code === 'InvalidParameter' && !err.retryable);
    });
  }

  test("another node's handle is refused naming both nodes (restore happens on its node)", () => {
    assert.throws(() => nodeA.nameOf('host-path:snap:v1:s@node-b', 'restoring'), (err: unknown) => {
      assert.ok(err instanceof PluginError && err.code === 'NotSupported' && !err.retryable);
      assert.match(err.message, /node "node-b".*node "node-a.example"/);
      return true;
    });
  });

  test('snapshot names are plain: no dot first, no "..", no separator, at most 230 characters', () => {
    assert.equal(isSnapshotName('cluster.a-snapshot_1'), true);
    for (const bad of ['', '.x', 'a..b', 'a/b', 'a b', 'x'.repeat(231)]) assert.equal(isSnapshotName(bad), false, bad);
  });
});
