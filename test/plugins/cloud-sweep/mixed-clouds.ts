/**
 * Emulated clouds holding the leftovers of two clusters mixed (the gone `prod-a`, the live
 * `prod-b`), untagged volumes and volumes with forged or partial tags, each cloud behind one
 * interface so the sweep tests run the same cases on EBS, GCE and Cinder. `populate` says which
 * ids the sweep of prod-a must find as orphans; everything else must be left alone.
 */
import { randomUUID } from 'node:crypto';
import type { CloudSweeper } from '../../../src/plugins/cloud-common/sweep.js';
import { labelsForTags } from '../../../src/plugins/gce-pd/labels.js';
import { Ec2Emulator } from '../../emulators/ec2.js';
import { GceEmulator } from '../../emulators/gce.js';
import { OpenStackEmulator } from '../../emulators/openstack.js';
import { awsPlugin, cinderPlugin, gcePlugin } from '../../integration/cloud-helpers.js';

export const HOUR = 3_600_000;
export type Tags = Record<string, string>;

export interface MixedCloud {
  name: 'aws' | 'gce' | 'cinder';
  sweeper: CloudSweeper;
  /** Adds a volume `ageMs` old; returns the id the sweep reports. */
  addVolume(name: string, tags: Tags, ageMs: number, attached?: boolean): string;
  addSnapshot(name: string, tags: Tags, ageMs: number, sourceId: string): string;
  /** Attaches a volume by the id the sweep reports. */
  attach(id: string): void;
  volumeIds(): string[];
  snapshotIds(): string[];
  /** Makes the next `times` volume lists answer "slow down". */
  throttleVolumeLists(times: number): void;
  /** Volume lists answer `size` at most per page. */
  smallPages(size: number): void;
  stop(): Promise<void>;
}

const iso = (ageMs: number): Date => new Date(Date.now() - ageMs);

export function awsCloud(ec2: Ec2Emulator): MixedCloud {
  return {
    name: 'aws',
    sweeper: awsPlugin(ec2).sweeper(),
    addVolume: (name, tags, ageMs, attached) => {
      const { id } = ec2.addVolume({ tags: { ...(name ? { Name: name } : {}), ...tags }, createTime: iso(ageMs), sizeGiB: 5 });
      if (attached) ec2.attach(id);
      return id;
    },
    addSnapshot: (name, tags, ageMs, sourceId) => ec2.snapshots.add({ volumeId: sourceId, tags: { Name: name, ...tags }, startTime: iso(ageMs) }).id,
    attach: (id) => ec2.attach(id),
    volumeIds: () => ec2.volumes().map((v) => v.id),
    snapshotIds: () => ec2.snapshots.all().filter((s) => s.state !== 'deleted').map((s) => s.id),
    throttleVolumeLists: (times) => ec2.faults.inject('DescribeVolumes', 'throttle', times),
    smallPages: (size) => (ec2.maxPageSize = size),
    stop: () => ec2.stop(),
  };
}

export function gceCloud(gce: GceEmulator): MixedCloud {
  const zone = gce.zones[0];
  return {
    name: 'gce',
    sweeper: gcePlugin(gce).sweeper(),
    addVolume: (name, tags, ageMs, attached) => {
      gce.addDisk({ name, description: JSON.stringify(tags), labels: labelsForTags(tags), creationTimestamp: iso(ageMs).toISOString(), sizeGb: 5 });
      if (attached) gce.attach(name);
      return `zones/${zone}/disks/${name}`;
    },
    addSnapshot: (name, tags, ageMs, sourceId) => {
      gce.snapshots.add({ name, description: JSON.stringify(tags), labels: labelsForTags(tags), creationTimestamp: iso(ageMs).toISOString(), sourceDisk: `projects/${gce.project}/${sourceId}` });
      return `projects/${gce.project}/global/snapshots/${name}`;
    },
    attach: (id) => gce.attach(id.slice(id.lastIndexOf('/') + 1)),
    volumeIds: () => gce.disks().map((d) => `${d.scope}/${d.location}/disks/${d.name}`),
    snapshotIds: () => gce.snapshots.all().map((s) => `projects/${gce.project}/global/snapshots/${s.name}`),
    throttleVolumeLists: (times) => gce.faults.inject('disks.aggregatedList', 'throttle', times),
    smallPages: (size) => (gce.maxPageSize = size),
    stop: () => gce.stop(),
  };
}

export function cinderCloud(os: OpenStackEmulator): MixedCloud {
  const cinderTime = (ageMs: number): string => iso(ageMs).toISOString().replace('Z', '000');
  return {
    name: 'cinder',
    sweeper: cinderPlugin(os).sweeper(),
    addVolume: (name, tags, ageMs, attached) => {
      const { id } = os.addVolume({ name, metadata: tags, createdAt: cinderTime(ageMs), size: 5 });
      if (attached) os.attach(id);
      return id;
    },
    addSnapshot: (name, tags, ageMs, sourceId) => os.snapshots.add({ volumeId: sourceId, name, metadata: tags, createdAt: cinderTime(ageMs) }).id,
    attach: (id) => os.attach(id),
    volumeIds: () => os.volumes().map((v) => v.id),
    snapshotIds: () => os.snapshots.all().map((s) => s.id),
    throttleVolumeLists: (times) => os.faults.inject('volumes.list', 'throttle', times),
    smallPages: (size) => (os.maxPageSize = size),
    stop: () => os.stop(),
  };
}

async function started<E extends { start(): Promise<string> }>(emulator: E, cloud: (e: E) => MixedCloud): Promise<MixedCloud> {
  await emulator.start();
  return cloud(emulator);
}

export const CLOUDS = {
  aws: () => started(new Ec2Emulator(), awsCloud),
  gce: () => started(new GceEmulator(), gceCloud),
  cinder: () => started(new OpenStackEmulator(), cinderCloud),
};

/** The tags our plugins write on a volume (cloud-common/tags.ts volumeTags), without Name. */
export function volumeTagsOf(cluster: string, pvName: string, claim = 'data', namespace = 'shop'): Tags {
  return {
    [`kubernetes.io/cluster/${cluster}`]: 'owned',
    'kubernetes.io/created-for/pv/name': pvName,
    'kubernetes.io/created-for/pvc/name': claim,
    'kubernetes.io/created-for/pvc/namespace': namespace,
  };
}

export function snapshotTagsOf(cluster: string, name = 'nightly', namespace = 'shop'): Tags {
  return {
    [`kubernetes.io/cluster/${cluster}`]: 'owned',
    'kubernetes.io/created-for/volumesnapshot/name': name,
    'kubernetes.io/created-for/volumesnapshot/namespace': namespace,
    'kubernetes.io/created-for/volumesnapshotcontent/name': `snapcontent-${randomUUID()}`,
  };
}

export interface Population {
  /** What the sweep of prod-a must delete. */
  orphanVolumes: string[];
  orphanSnapshots: string[];
  /** prod-a's own that must be listed but kept, by status. */
  tooYoung: string[];
  inUse: string[];
  notProven: string[];
  /** Never even listed: prod-b's, untagged. */
  foreign: string[];
}

/** Two clusters' volumes and snapshots mixed, plus untagged and forged ones. */
export function populate(c: MixedCloud): Population {
  const old = 48 * HOUR;
  const pv = (): string => `pvc-${randomUUID()}`;
  const ours = (age: number, attached = false): string => {
    const p = pv();
    return c.addVolume(`prod-a-dynamic-${p}`, volumeTagsOf('prod-a', p), age, attached);
  };
  const orphan = ours(old);
  const orphan2 = ours(old);
  const young = ours(HOUR);
  const attached = ours(old, true);
  const theirsPv = pv();
  const theirs = c.addVolume(`prod-b-dynamic-${theirsPv}`, volumeTagsOf('prod-b', theirsPv), old);
  const untagged = c.addVolume(`prod-a-dynamic-${pv()}`, {}, old);
  // The cluster tag alone (created-for tags missing): not proof.
  const partial = c.addVolume(`prod-a-dynamic-${pv()}`, { 'kubernetes.io/cluster/prod-a': 'owned' }, old);
  // Every tag, but the name is not the one the PV tag gives.
  const misnamed = c.addVolume(`prod-a-dynamic-${pv()}`, volumeTagsOf('prod-a', pv()), old);
  // Every tag of prod-a, and prod-b's cluster tag as well.
  const twoP = pv();
  const shared = c.addVolume(`prod-a-dynamic-${twoP}`, { ...volumeTagsOf('prod-a', twoP), 'kubernetes.io/cluster/prod-b': 'owned' }, old);
  const snapOrphan = c.addSnapshot(`prod-a-snapshot-${randomUUID()}`, snapshotTagsOf('prod-a'), old, orphan);
  const snapYoung = c.addSnapshot(`prod-a-snapshot-${randomUUID()}`, snapshotTagsOf('prod-a'), HOUR, young);
  const snapTheirs = c.addSnapshot(`prod-b-snapshot-${randomUUID()}`, snapshotTagsOf('prod-b'), old, theirs);
  const snapForged = c.addSnapshot(`prod-a-backup-${randomUUID().slice(0, 8)}`, snapshotTagsOf('prod-a'), old, young);
  return {
    orphanVolumes: [orphan, orphan2],
    orphanSnapshots: [snapOrphan],
    tooYoung: [young, snapYoung],
    inUse: [attached],
    notProven: [partial, misnamed, shared, snapForged],
    foreign: [theirs, untagged, snapTheirs],
  };
}
