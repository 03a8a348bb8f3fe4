/**
 * `pv-controller orphans --cloud` as a user runs it from a laptop: the compiled CLI in its own
 * process, no cluster at all, the cloud reached through the SDK's standard environment
 * (AWS_ENDPOINT_URL_EC2, OS_*), two clusters' volumes and snapshots mixed in the emulator. Dry run
 * by default; --delete refuses without a terminal unless --yes; deletes exactly the gone cluster's
 * old, detached, proven leftovers; exit codes for bad flags and partial failures.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { Ec2Emulator } from '../../emulators/ec2.js';
import { GceEmulator } from '../../emulators/gce.js';
import { OpenStackEmulator } from '../../emulators/openstack.js';
import { runCli, stopCliProcesses } from '../../helpers/run-cli.js';
import { AWS_CREDENTIALS, awsEnvironment, openStackEnv } from '../cloud-helpers.js';
import { awsCloud, cinderCloud, gceCloud, populate, type Population } from '../../plugins/cloud-sweep/mixed-clouds.js';

const teardown: Array<() => Promise<void>> = [];
afterEach(async () => {
  await stopCliProcesses();
  for (const step of teardown.splice(0).reverse()) await step();
});

interface AwsWorld {
  ec2: Ec2Emulator;
  env: Record<string, string>;
  p: Population;
  volumes: () => string[];
  snapshots: () => string[];
}

async function awsWorld(): Promise<AwsWorld> {
  const ec2 = new Ec2Emulator();
  await ec2.start();
  teardown.push(() => ec2.stop());
  const cloud = awsCloud(ec2);
  const p = populate(cloud);
  return { ec2, env: awsEnvironment(ec2), p, volumes: () => cloud.volumeIds().sort(), snapshots: () => cloud.snapshotIds().sort() };
}

const sweepArgs = (...extra: string[]): string[] => ['orphans', '--cloud', 'aws', '--cluster-name', 'prod-a', ...extra];

test('orphans --cloud aws: a dry run lists the gone cluster\'s leftovers with their status and deletes nothing', async () => {
  const w = await awsWorld();
  const before = { volumes: w.volumes(), snapshots: w.snapshots() };
  const result = await runCli(sweepArgs(), w.env);
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.trim().split('\n');
  assert.match(lines[0], /^KIND\s+ID\s+NAME\s+SIZE\s+AGE\s+FOR\s+PV\/SOURCE\s+STATUS$/);
  const orphanLines = lines.filter((l) => l.includes('orphan (dry run: would be deleted)'));
  assert.deepEqual(orphanLines.map((l) => l.split(/\s+/)[1]).sort(), [...w.p.orphanVolumes, ...w.p.orphanSnapshots].sort());
  for (const line of orphanLines.filter((l) => l.startsWith('volume'))) assert.match(line, /\s5Gi\s+2d\s+shop\/data\s+pvc-/);
  for (const id of w.p.foreign) assert.doesNotMatch(result.stdout, new RegExp(id));
  assert.match(result.stdout, new RegExp(`${w.p.inUse[0]}.*skipped: in-use`));
  assert.match(result.stderr, /2 orphaned volume\(s\) \(10 GiB\) and 1 snapshot\(s\) of cluster "prod-a"; 7 skipped\. Dry run: nothing deleted/);
  assert.deepEqual({ volumes: w.volumes(), snapshots: w.snapshots() }, before);
  assert.equal(w.ec2.requests.filter((r) => /^(Delete|Create)/.test(r.action)).length, 0, 'no write call at all');
});

test('orphans --cloud aws --output json: every item with its tags, status and age; --older-than 72h leaves no orphan', async () => {
  const w = await awsWorld();
  const result = await runCli(sweepArgs('--output', 'json', '--older-than', '3d'), w.env);
  assert.equal(result.code, 0, result.stderr);
  const doc = JSON.parse(result.stdout) as {
    dryRun: boolean; olderThan: string;
    volumes: Array<{ id: string; status: string; tags: Record<string, string>; ageSeconds: number; claim: unknown }>;
    summary: { orphanVolumes: number; orphanSnapshots: number };
  };
  assert.equal(doc.dryRun, true);
  assert.equal(doc.olderThan, '72h0m0s');
  assert.deepEqual(doc.summary.orphanVolumes + doc.summary.orphanSnapshots, 0);
  const first = doc.volumes.find((v) => v.id === w.p.orphanVolumes[0]);
  assert.equal(first?.status, 'too-young');
  assert.equal(first?.tags['kubernetes.io/cluster/prod-a'], 'owned');
  assert.ok((first?.ageSeconds ?? 0) >= 48 * 3600);
  assert.deepEqual(first?.claim, { namespace: 'shop', name: 'data' });
});

test('orphans --cloud aws --delete: refused without a terminal and without --yes; with --yes deletes exactly the orphans', async () => {
  const w = await awsWorld();
  const before = { volumes: w.volumes(), snapshots: w.snapshots() };
  const refused = await runCli(sweepArgs('--delete'), w.env);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--delete asks for the cluster name on a terminal and there is none: pass --yes/);
  assert.deepEqual({ volumes: w.volumes(), snapshots: w.snapshots() }, before);

  const deleted = await runCli(sweepArgs('--delete', '--yes'), w.env);
  assert.equal(deleted.code, 0, deleted.stderr);
  const results = deleted.stdout.slice(deleted.stdout.indexOf('\nKIND')).trim().split('\n');
  assert.match(results[0], /^KIND\s+ID\s+NAME\s+RESULT$/);
  const rows = results.slice(1).map((l) => l.split(/\s+/)).map((cells) => [cells[0], cells[1], cells.at(-1)]);
  assert.deepEqual(rows[0], ['snapshot', w.p.orphanSnapshots[0], 'deleted'], 'the snapshot goes first');
  assert.deepEqual(rows.slice(1).sort(), [...w.p.orphanVolumes].sort().map((id) => ['volume', id, 'deleted']));
  assert.deepEqual(w.volumes(), before.volumes.filter((id) => !w.p.orphanVolumes.includes(id)));
  assert.deepEqual(w.snapshots(), before.snapshots.filter((id) => !w.p.orphanSnapshots.includes(id)));
  assert.doesNotMatch(deleted.stdout + deleted.stderr, new RegExp(AWS_CREDENTIALS.secretAccessKey));
});

test('orphans --cloud aws --delete --yes: a delete the cloud keeps failing is reported and the exit status is 1', async () => {
  const w = await awsWorld();
  w.ec2.faults.inject('DeleteVolume', 'serverError', 1000);
  const result = await runCli(sweepArgs('--delete', '--yes', '-v', '0'), w.env);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stdout, /snapshot\s+\S+\s+\S+\s+deleted/);
  assert.equal(result.stdout.match(/volume\s+vol-\S+\s+\S+\s+failed: DeleteVolume failed after \d+ attempts/g)?.length, 2, result.stdout);
  assert.match(result.stderr, /1 deleted, 0 kept, 2 failed/);
  for (const id of w.p.orphanVolumes) assert.ok(w.volumes().includes(id));
});

test('orphans --cloud: flags that name a cluster, a default --cluster-name and cloud-only flags without --cloud exit 2', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['orphans', '--cloud', 'aws', '--cluster-name', 'a', '--kubeconfig', '/nonexistent'], /--cloud talks to no cluster: --kubeconfig cannot go with it/],
    [['orphans', '--cloud', 'aws', '--cluster-name', 'a', '--host-path-root', '/tmp'], /--host-path-root cannot go with it/],
    [['orphans', '--cloud', 'aws', '--cluster-name', 'a', '--cloud-provider', 'aws'], /--cloud-provider cannot go with it/],
    [['orphans', '--cloud', 'aws'], /--cloud needs --cluster-name/],
    [['orphans', '--cloud', 'azure', '--cluster-name', 'a'], /--cloud.*'azure' is invalid.*aws, gce, cinder/],
    [['orphans', '--cloud', 'aws', '--cluster-name', 'a', '--older-than', 'yesterday'], /--older-than: invalid duration "yesterday"/],
    [['orphans', '--cloud', 'aws', '--cluster-name', 'a', '--yes'], /--yes only goes with --delete/],
    [['orphans', '--older-than', '2h'], /--older-than only goes with --cloud/],
    [['orphans', '-o', 'json'], /--output only goes with --cloud/],
  ];
  for (const [args, message] of cases) {
    const result = await runCli(args, {});
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message);
  }
});

test('orphans --cloud cinder --delete --yes: OS_* credentials, snapshots deleted before their volume, the rest left', async () => {
  const os = new OpenStackEmulator();
  await os.start();
  teardown.push(() => os.stop());
  const cloud = cinderCloud(os);
  const p = populate(cloud);
  const before = { volumes: cloud.volumeIds().sort(), snapshots: cloud.snapshotIds().sort() };
  const result = await runCli(['orphans', '--cloud', 'cinder', '--cluster-name', 'prod-a', '--delete', '--yes'], openStackEnv(os));
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(cloud.volumeIds().sort(), before.volumes.filter((id) => !p.orphanVolumes.includes(id)));
  assert.deepEqual(cloud.snapshotIds().sort(), before.snapshots.filter((id) => !p.orphanSnapshots.includes(id)));
  assert.doesNotMatch(result.stdout + result.stderr, new RegExp(os.password));
});

test('orphans --cloud gce --delete --yes: the metadata server\'s service account, --gce-project, exactly the orphans deleted', async () => {
  const gce = new GceEmulator();
  await gce.start();
  teardown.push(() => gce.stop());
  const cloud = gceCloud(gce);
  const p = populate(cloud);
  const before = { volumes: cloud.volumeIds().sort(), snapshots: cloud.snapshotIds().sort() };
  const env = { GCE_METADATA_HOST: new URL(gce.url).host, METADATA_SERVER_DETECTION: 'assume-present', HOME: '/nonexistent' };
  const args = ['orphans', '--cloud', 'gce', '--cluster-name', 'prod-a', '--gce-project', gce.project, '--gce-endpoint', gce.computeEndpoint, '--delete', '--yes'];
  const result = await runCli(args, env);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(cloud.volumeIds().sort(), before.volumes.filter((id) => !p.orphanVolumes.includes(id)));
  assert.deepEqual(cloud.snapshotIds().sort(), before.snapshots.filter((id) => !p.orphanSnapshots.includes(id)));
});
