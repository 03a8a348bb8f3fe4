/**
 * A class that allows expansion for volumes that can never grow is told so, once, as a Warning
 * event on the StorageClass (expander/class-check.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StorageClass } from '@pv-controller/kube/types.js';
import { ClassExpansionCheck, expansionNeverPossible } from '../../../src/controller/expander/class-check.js';
import { HostPathPlugin, HOST_PATH_PROVISIONER } from '../../../src/plugins/host-path/index.js';
import { NfsSubdirPlugin } from '../../../src/plugins/nfs-subdir/index.js';
import { PluginRegistry } from '../../../src/plugins/registry.js';
import { FakeCluster } from '../../helpers/fake-context.js';

function cls(name: string, provisioner: string, allow: boolean | undefined, parameters: Record<string, string> = {}): StorageClass {
  return { metadata: { name, uid: `uid-${name}` }, provisioner, ...(allow !== undefined ? { allowVolumeExpansion: allow } : {}), parameters };
}

function registry(): PluginRegistry {
  const plugins = new PluginRegistry();
  plugins.register(new HostPathPlugin({ roots: ['/srv/pv-controller-test-root'] }));
  return plugins;
}

test('a host-path class of plain directories that allows expansion is named; a sized one, one that does not allow it, and another provisioner\'s are not', () => {
  const plugins = registry();
  assert.match(expansionNeverPossible(cls('plain', HOST_PATH_PROVISIONER, true), plugins) ?? '', /plain directories, which have no size to grow/);
  assert.equal(expansionNeverPossible(cls('sized', HOST_PATH_PROVISIONER, true, { sizing: 'image' }), plugins), undefined);
  assert.equal(expansionNeverPossible(cls('off', HOST_PATH_PROVISIONER, false), plugins), undefined);
  assert.equal(expansionNeverPossible(cls('other', 'ebs.csi.aws.com', true), plugins), undefined, 'not a plugin of this process');
});

test('a plugin without the expand capability is named as unable to grow volumes', () => {
  const plugins = new PluginRegistry();
  const nfs = new NfsSubdirPlugin({ mounts: [{ server: 'nfs.example', share: '/exports', mountPath: '/srv/pv-controller-test-nfs' }] });
  plugins.register(nfs);
  assert.equal(expansionNeverPossible(cls('nfs', nfs.name, true), plugins), `the ${nfs.name} plugin cannot grow volumes`);
});

test('the warning is an event on the StorageClass, once per class and reason, and only while leading', () => {
  const cluster = new FakeCluster();
  const check = new ClassExpansionCheck(cluster.ctx, registry());
  const plain = cls('plain', HOST_PATH_PROVISIONER, true);
  check.check(plain);
  assert.equal(cluster.events.length, 0, 'not leading yet');
  cluster.addClass(plain);
  check.start();
  check.check(plain);
  const events = cluster.events.filter((e) => e.reason === 'ExpansionNeverPossible');
  assert.equal(events.length, 1, 'said once, however often the class is seen');
  assert.equal(events[0]!.type, 'Warning');
  assert.match(events[0]!.message, /^allowVolumeExpansion is true, but its volumes are plain directories.*every resize of its claims will be refused$/);
  check.check({ ...plain, allowVolumeExpansion: false });
  check.check(plain);
  assert.equal(cluster.events.filter((e) => e.reason === 'ExpansionNeverPossible').length, 2, 'said again after it was fixed and broken again');
});
