import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  chooseZonesForVolume,
  claimNameHashAndIndex,
  fnv1Hash32,
  selectZonesForVolume,
  type ZoneSelection,
} from '../../../src/plugins/cloud-common/zones.js';
import { PluginError } from '../../../src/plugins/api/errors.js';

const zoneKey = 'topology.kubernetes.io/zone';

function selection(fields: Partial<ZoneSelection>): ZoneSelection {
  return { claimName: 'claim', replicas: 1, fallbackZones: () => Promise.resolve(['z-a', 'z-b', 'z-c']), ...fields };
}

describe('zone choice', () => {
  it('hashes with 32-bit FNV-1 as Go\'s hash/fnv New32 does', () => {
    assert.equal(fnv1Hash32(''), 0x811c9dc5);
    assert.equal(fnv1Hash32('a'), 0x050c5d7e);
    assert.equal(fnv1Hash32('ab'), 0x70772d38);
    assert.equal(fnv1Hash32('abc'), 0x439c2f4b);
    assert.equal(fnv1Hash32('foobar'), 0x31f0b262);
  });

  it('hashes only the StatefulSet name of `<claim>-<set>-<n>` and offsets by the ordinal', () => {
    assert.deepEqual(claimNameHashAndIndex('www-web-3'), { hash: fnv1Hash32('web'), index: 3 });
    assert.deepEqual(claimNameHashAndIndex('data-7'), { hash: fnv1Hash32('data'), index: 7 });
    assert.deepEqual(claimNameHashAndIndex('plain'), { hash: fnv1Hash32('plain'), index: 0 });
    assert.deepEqual(claimNameHashAndIndex('a-b-c'), { hash: fnv1Hash32('a-b-c'), index: 0 });
  });

  it('two claims of one StatefulSet member land in one zone; members spread round-robin', () => {
    const zones = ['z-c', 'z-a', 'z-b'];
    assert.deepEqual(chooseZonesForVolume(zones, 'data-web-1', 1), chooseZonesForVolume(zones, 'logs-web-1', 1));
    const spread = new Set([0, 1, 2].map((i) => chooseZonesForVolume(zones, `data-web-${i}`, 1)[0]));
    assert.equal(spread.size, 3);
  });

  it('chooses the same zones whatever the order they are given in', () => {
    assert.deepEqual(chooseZonesForVolume(['b', 'a', 'c'], 'claim', 2), chooseZonesForVolume(['c', 'b', 'a'], 'claim', 2));
    assert.equal(chooseZonesForVolume(['a', 'b', 'c'], 'claim', 2).length, 2);
  });

  it('prefers the selected node\'s zone, then allowedTopologies, then parameters, then the fallback', async () => {
    assert.deepEqual(await selectZonesForVolume(selection({ nodeZone: 'z-n' })), ['z-n']);
    const allowed = [{ matchLabelExpressions: [{ key: zoneKey, values: ['z-x', 'z-y'] }] }];
    const fromTopology = await selectZonesForVolume(selection({ allowedTopologies: allowed }));
    assert.ok(['z-x', 'z-y'].includes(fromTopology[0]));
    assert.deepEqual(await selectZonesForVolume(selection({ zoneParameter: 'z-p' })), ['z-p']);
    assert.ok(['z-1', 'z-2'].includes((await selectZonesForVolume(selection({ zonesParameter: ['z-1', 'z-2'] })))[0]));
    assert.ok(['z-a', 'z-b', 'z-c'].includes((await selectZonesForVolume(selection({})))[0]));
  });

  it('a replicated volume includes the selected node\'s zone and one more', async () => {
    const allowed = [{ matchLabelExpressions: [{ key: zoneKey, values: ['z-1', 'z-2', 'z-3'] }] }];
    const zones = await selectZonesForVolume(selection({ nodeZone: 'z-2', allowedTopologies: allowed, replicas: 2 }));
    assert.equal(zones.length, 2);
    assert.ok(zones.includes('z-2'));
  });

  it('refuses contradictions as InvalidParameter naming the parameter', async () => {
    const refused = async (fields: Partial<ZoneSelection>, parameter: string) =>
      assert.rejects(selectZonesForVolume(selection(fields)), (err: unknown) => {
        assert.ok(err instanceof PluginError);
        assert.equal(err.code, 'InvalidParameter');
        assert.ok(err.message.startsWith(`${parameter}:`), err.message);
        return true;
      });
    await refused({ zoneParameter: 'a', zonesParameter: ['b'] }, 'zones');
    await refused({ zoneParameter: 'a', nodeZone: 'b' }, 'zone');
    await refused({ allowedTopologies: [{ matchLabelExpressions: [{ key: 'rack', values: ['r1'] }] }] }, 'allowedTopologies');
    await refused({ zoneParameter: 'a', replicas: 2 }, 'zone');
    await refused({ zonesParameter: ['a'], replicas: 2 }, 'zones');
  });

  it('fails retryably when no zone can be found at all', async () => {
    await assert.rejects(
      selectZonesForVolume(selection({ fallbackZones: () => Promise.resolve([]) })),
      (err: unknown) => err instanceof PluginError && err.retryable,
    );
  });
});
