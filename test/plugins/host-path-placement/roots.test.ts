import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HostPathPlugin } from '../../../src/plugins/host-path/index.js';
import type { ProvisionedVolume } from '../../../src/plugins/api/core.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { conformanceRequest } from '../conformance/subject.js';

const Mi = 1024n * 1024n;

function pathOf(volume: ProvisionedVolume): string {
  const path = volume.source.hostPath?.path ?? volume.source.local?.path;
  assert.ok(path);
  return path;
}

const rootOf = (volume: ProvisionedVolume): string => join(pathOf(volume), '..');

describe('host-path volumes placed across several roots', () => {
  let base: string;
  let a: string;
  let b: string;
  let c: string;

  before(async () => {
    base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), 'h6-placement-')));
  });
  after(() => fs.rm(base, { recursive: true, force: true }));

  async function freshRoots(): Promise<void> {
    const dir = await fs.mkdtemp(join(base, 'run-'));
    [a, b, c] = [join(dir, 'a'), join(dir, 'b'), join(dir, 'c')];
    for (const root of [a, b, c]) await fs.mkdir(root);
  }

  test('concurrent provisions never promise the same space: each root holds what its capacity says, the rest is refused naming the roots', async () => {
    await freshRoots();
    const plugin = new HostPathPlugin({ roots: [a, b], rootLimits: { [a]: { capacityBytes: 100n * Mi }, [b]: { capacityBytes: 60n * Mi } } });
    // 8 claims of 30Mi, all at once: 3 fit in a (90 of 100) and 2 in b (60 of 60); 3 must be refused.
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => plugin.provision(conformanceRequest(plugin, { requestBytes: 30n * Mi }))));
    const made = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    assert.equal(made.length, 5);
    assert.equal(made.filter((v) => rootOf(v) === a).length, 3);
    assert.equal(made.filter((v) => rootOf(v) === b).length, 2);
    assert.equal(refused.length, 3);
    for (const err of refused) {
      assert.ok(err instanceof PluginError && err.retryable, 'a full node is retried later (space may be freed)');
      assert.match(err.message, /cannot hold 30Mi more: 90Mi of its configured capacity 100Mi already given to 3 volume\(s\)/);
      assert.match(err.message, /cannot hold 30Mi more: 60Mi of its configured capacity 60Mi/);
    }
  });

  test('a restarted plugin rebuilds what each root promised from its records, and a deleted volume gives its space back', async () => {
    await freshRoots();
    const limits = { [a]: { capacityBytes: 50n * Mi } };
    const first = new HostPathPlugin({ roots: [a], rootLimits: limits });
    const req = conformanceRequest(first, { requestBytes: 40n * Mi });
    await first.provision(req);
    const restarted = new HostPathPlugin({ roots: [a], rootLimits: limits });
    await assert.rejects(restarted.provision(conformanceRequest(restarted, { requestBytes: 20n * Mi })), /40Mi of its configured capacity 50Mi already given to 1 volume/);
    const again = await restarted.provision(req);
    assert.equal(pathOf(again), join(a, req.backingName), 'a retry of the same claim finds its volume, not a second one');
    await restarted.delete({ backingName: req.backingName });
    await restarted.provision(conformanceRequest(restarted, { requestBytes: 20n * Mi }));
  });

  test('leastAllocated spreads volumes, mostAllocated packs them, weighted follows the weights', async () => {
    await freshRoots();
    const limits = { [a]: { capacityBytes: 100n * Mi, weight: 3 }, [b]: { capacityBytes: 100n * Mi, weight: 1 }, [c]: { capacityBytes: 100n * Mi, weight: 0 } };
    const plugin = new HostPathPlugin({ roots: [a, b, c], rootLimits: limits });
    const place = async (placement: string): Promise<string> => rootOf(await plugin.provision(conformanceRequest(plugin, { requestBytes: 10n * Mi, parameters: { placement } })));
    const spread = [await place('leastAllocated'), await place('leastAllocated'), await place('leastAllocated')];
    assert.deepEqual(new Set(spread), new Set([a, b, c]), 'three volumes on three empty roots land on three roots');
    assert.equal(await place('mostAllocated'), a, 'equal roots: packing stays on the first');
    assert.equal(await place('mostAllocated'), a, 'and keeps filling the fullest');
    // Now a holds 30Mi, b and c 10Mi each. Weighted (a:3, b:1, c:0): a's share stays below b's per unit of
    // weight ((30+10)/3, (40+10)/3, (50+10)/3 against (10+10)/1; a tie goes to the first root) until a has 3 × b.
    const weighted = [await place('weighted'), await place('weighted'), await place('weighted')];
    assert.ok(!weighted.includes(c), 'a root of weight 0 takes no volume of a weighted class');
    assert.deepEqual(weighted, [a, a, a]);
  });

  test('the capacity published for a class is the largest room of the roots it may use, never their sum', async () => {
    await freshRoots();
    const plugin = new HostPathPlugin({ roots: [a, b, c], rootLimits: { [a]: { capacityBytes: 100n * Mi }, [b]: { capacityBytes: 80n * Mi, weight: 0 }, [c]: { capacityBytes: 50n * Mi } } });
    await plugin.provision(conformanceRequest(plugin, { requestBytes: 40n * Mi, parameters: { root: a } }));
    assert.deepEqual(await plugin.storageCapacity({}), { capacityBytes: 80n * Mi, maximumVolumeBytes: 80n * Mi });
    assert.deepEqual(await plugin.storageCapacity({ placement: 'weighted' }), { capacityBytes: 60n * Mi, maximumVolumeBytes: 60n * Mi }, 'b (weight 0) is not the weighted class\'s');
    assert.deepEqual(await plugin.storageCapacity({ root: c }), { capacityBytes: 50n * Mi, maximumVolumeBytes: 50n * Mi });
  });

  test('roots without a configured capacity keep today\'s behaviour: plain directories promise no space', async () => {
    await freshRoots();
    const plugin = new HostPathPlugin({ roots: [a] });
    const huge = await plugin.provision(conformanceRequest(plugin, { requestBytes: 1n << 60n }));
    assert.equal(rootOf(huge), a);
  });

  test('limits for a root that is not configured, or a negative weight, are refused when the plugin is made', async () => {
    await freshRoots();
    assert.throws(() => new HostPathPlugin({ roots: [a], rootLimits: { [b]: { capacityBytes: Mi } } }), /not a configured root/);
    assert.throws(() => new HostPathPlugin({ roots: [a], rootLimits: { [a]: { weight: -1 } } }), /weight must be a whole number/);
  });
});
