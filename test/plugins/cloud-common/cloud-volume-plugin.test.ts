import assert from 'node:assert/strict';
import { pino } from 'pino';
import { describe, it } from 'node:test';
import { CloudVolumePlugin, provisionedDisk, withFsType } from '../../../src/plugins/cloud-common/cloud-volume-plugin.js';
import {
  type CheckedParameters,
  checkValue,
  checkZoneValues,
  nonEmpty,
  readParameters,
  valueOf,
  zoneParameters,
  type ZoneParameters,
} from '../../../src/plugins/cloud-common/parameters.js';
import { diskTopology } from '../../../src/plugins/cloud-common/topology.js';
import { CloudSnapshotOps } from '../../../src/plugins/cloud-common/snapshots.js';
import { NilMetricsProvider } from '../../../src/metrics/nil.js';
import type { ProvisionedVolume, ProvisionRequest } from '../../../src/plugins/api/core.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { fastCloudOptions, provisionRequest } from '../../emulators/fixtures.js';

interface FakeDisk {
  id: string;
  state: string;
  zone: string;
}

type FakeParameters = ZoneParameters & { fsType?: string };

function parseFakeParameters(parameters: Record<string, string>): CheckedParameters<FakeParameters> {
  const read = readParameters(parameters, ['zone', 'zones', 'fstype'], 'example.com/fake');
  checkZoneValues(read);
  checkValue(read, 'fstype', nonEmpty);
  const fsType = valueOf(read, 'fstype');
  return { parsed: { ...zoneParameters(read), ...(fsType === undefined ? {} : { fsType }) }, problems: read.problems };
}

const none = (): Promise<never> => Promise.reject(new Error('the fake cloud has no snapshots'));

/** A cloud whose one disk shows the states in `states` to successive reads, then is gone. */
class FakeCloudPlugin extends CloudVolumePlugin<FakeParameters, FakeDisk> {
  readonly calls: string[] = [];

  constructor(
    private readonly states: string[],
    goneIsRetryable: boolean,
  ) {
    super(
      {
        name: 'example.com/fake',
        component: 'fake',
        noun: 'fake disk',
        maxBackingNameLength: 63,
        classify: () => 'fatal',
        parseParameters: parseFakeParameters,
        disks: { describeCall: 'read disk', stateOf: (disk) => disk.state, ready: ['ready', 'attached'], failed: 'broken', goneIsRetryable },
      },
      fastCloudOptions(),
    );
  }

  handles(): boolean {
    return false;
  }

  // Snapshots are not what these tests are about: the fake cloud has none, and restores and clones nothing.
  readonly supportsClone = false;
  protected readonly snapshotOps = new CloudSnapshotOps(
    { noun: 'fake snapshot', owns: () => false, findOwned: async () => [], cut: () => none(), describe: async () => undefined, listOfCluster: async () => [], remove: async () => 'absent' },
    (_what, op) => op(new AbortController().signal),
    pino({ level: 'silent' }),
  );
  ownsSnapshot = (): boolean => false;
  createSnapshot = none;
  provisionFromSnapshot = none;
  provisionClone = none;

  // Nor is the sweep or provenance: no disk of this cloud is ever proven.
  sweeper(): never {
    throw new Error('the fake cloud has no sweep');
  }

  protected sweepIdOf(): string {
    throw new Error('the fake cloud names no disk by a PV');
  }

  metricsFor(): NilMetricsProvider {
    return new NilMetricsProvider('fake disk');
  }

  async provision(req: ProvisionRequest): Promise<ProvisionedVolume> {
    const parsed = this.parametersOf(req);
    const [zone] = await this.zonesForDisk(req, parsed, 1, () => Promise.resolve(['zone-a']));
    this.calls.push(`create in ${zone}`);
    const ready = await this.waitUntilReady(
      'disk-1',
      () => Promise.resolve(this.read(zone)),
      (disk) => this.discard(disk),
      req.signal,
    );
    return provisionedDisk({ cinder: withFsType({ volumeID: ready.id }, parsed.fsType) }, 3, diskTopology([ready.zone], 'region-1'));
  }

  delete(): Promise<void> {
    return Promise.resolve();
  }

  listBackingVolumes(): Promise<never[]> {
    return Promise.resolve([]);
  }

  private read(zone: string): FakeDisk | undefined {
    this.calls.push('read');
    const state = this.states.shift();
    return state === undefined ? undefined : { id: 'disk-1', state, zone };
  }

  private discard(disk: FakeDisk): Promise<never> {
    this.calls.push(`discard ${disk.id}`);
    return Promise.reject(new PluginError('Backend', `fake disk ${disk.id} failed; it was deleted`, false));
  }
}

describe('the cloud plugin skeleton', () => {
  it('polls a new disk until a ready state and returns its source, capacity and zone topology', async () => {
    const plugin = new FakeCloudPlugin(['creating', 'creating', 'attached'], false);
    const volume = await plugin.provision(provisionRequest({ parameters: { Zone: ' zone-b ', fsType: 'xfs' } }));
    assert.deepEqual(plugin.calls, ['create in zone-b', 'read', 'read', 'read']);
    assert.deepEqual(volume.source, { cinder: { volumeID: 'disk-1', fsType: 'xfs' } });
    assert.equal(volume.capacity, '3Gi');
    assert.deepEqual(volume.labels, { 'topology.kubernetes.io/zone': 'zone-b', 'topology.kubernetes.io/region': 'region-1' });
  });

  it('leaves fsType out of the source, and topology out of the result, when there is none', () => {
    assert.deepEqual(provisionedDisk({ cinder: withFsType({ volumeID: 'v' }, undefined) }, 1), {
      source: { cinder: { volumeID: 'v' } },
      capacity: '1Gi',
    });
  });

  it('hands a disk the cloud failed to create to discardFailed and fails with its error', async () => {
    const plugin = new FakeCloudPlugin(['creating', 'broken'], false);
    await assert.rejects(plugin.provision(provisionRequest()), /fake disk disk-1 failed; it was deleted/);
    assert.deepEqual(plugin.calls, ['create in zone-a', 'read', 'read', 'discard disk-1']);
  });

  it('refuses a disk that vanished while it was polled, naming it, retryable as the cloud declares', async () => {
    for (const goneIsRetryable of [false, true]) {
      await assert.rejects(
        new FakeCloudPlugin(['creating'], goneIsRetryable).provision(provisionRequest()),
        (err: unknown) =>
          err instanceof PluginError &&
          err.code === 'Backend' &&
          err.retryable === goneIsRetryable &&
          err.message === 'fake disk disk-1 disappeared before it became ready',
      );
    }
  });

  it('refuses bad parameters before any backend call, listing every problem', async () => {
    const plugin = new FakeCloudPlugin(['ready'], false);
    const parameters = { zone: 'a', zones: 'b,,c', fsType: ' ' };
    assert.deepEqual(
      plugin.validateParameters(parameters).map((problem) => problem.parameter),
      ['zones', 'fsType', 'zones'],
    );
    await assert.rejects(
      plugin.provision(provisionRequest({ parameters })),
      (err: unknown) => err instanceof PluginError && err.code === 'InvalidParameter' && !err.retryable && /zones: .*fsType: .*zones: /.test(err.message),
    );
    assert.deepEqual(plugin.calls, []);
  });
});
