import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rootLimitsFromFlags } from '../../../src/cli/host-path-root-flags.js';
import { pluginSettingsFromFlags } from '../../../src/cli/plugin-flags.js';

describe('host-path per-root flags', () => {
  test('capacity and weight are read per root, a trailing slash ignored', () => {
    const limits = rootLimitsFromFlags({
      hostPathRoot: ['/mnt/a', '/mnt/b/'],
      hostPathRootCapacity: ['/mnt/a=10Gi', '/mnt/b/=500Mi'],
      hostPathRootWeight: ['/mnt/b=3'],
    });
    assert.deepEqual(limits, { '/mnt/a': { capacityBytes: 10n * 1024n ** 3n }, '/mnt/b': { capacityBytes: 500n * 1024n ** 2n, weight: 3 } });
  });

  test('a single --host-path-root without the new flags gives the settings it always gave', () => {
    const settings = pluginSettingsFromFlags({ hostPathRoot: ['/var/lib/volumes'] });
    assert.deepEqual(settings.hostPathRoots, ['/var/lib/volumes']);
    assert.equal(settings.hostPathRootLimits, undefined);
  });

  for (const [flags, message] of [
    [{ hostPathRoot: ['/mnt/a'], hostPathRootCapacity: ['/mnt/b=1Gi'] }, /names "\/mnt\/b", which is not a --host-path-root/],
    [{ hostPathRoot: ['/mnt/a'], hostPathRootCapacity: ['/mnt/a'] }, /must be DIR=VALUE/],
    [{ hostPathRoot: ['/mnt/a'], hostPathRootCapacity: ['/mnt/a=lots'] }, /"lots" is not a quantity/],
    [{ hostPathRoot: ['/mnt/a'], hostPathRootCapacity: ['/mnt/a=0'] }, /must be positive/],
    [{ hostPathRoot: ['/mnt/a'], hostPathRootCapacity: ['/mnt/a=1Gi', '/mnt/a=2Gi'] }, /names "\/mnt\/a" twice/],
    [{ hostPathRoot: ['/mnt/a'], hostPathRootWeight: ['/mnt/a=1.5'] }, /whole number 0–1000, got "1.5"/],
    [{ hostPathRoot: ['/mnt/a'], hostPathRootWeight: ['/mnt/a=1001'] }, /whole number 0–1000/],
    [{ hostPathRoot: ['/mnt/a'], hostPathRootWeight: ['/mnt/a=-1'] }, /whole number/],
  ] as const) {
    test(`refused with a message naming the flag: ${JSON.stringify(flags)}`, () => {
      assert.throws(() => rootLimitsFromFlags({ ...flags, hostPathRoot: [...flags.hostPathRoot] } as never), message);
    });
  }
});
