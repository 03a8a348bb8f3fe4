/** `orphans --cloud` flag checks, age display, and the typed confirmation of --delete (in-process, against the EC2 emulator). */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { cloudSweepSettings, parseOlderThan } from '../../src/cli/orphans-cloud-flags.js';
import { runCloudSweep } from '../../src/cli/orphans-cloud.js';
import { humanAge, safeCell } from '../../src/cli/orphans-cloud-report.js';
import { Ec2Emulator } from '../emulators/ec2.js';
import { awsEnvironment } from '../integration/cloud-helpers.js';
import { awsCloud, populate } from '../plugins/cloud-sweep/mixed-clouds.js';

const given = (key: string): string => (key === 'cloudProvider' ? 'default' : 'cli');
const base = { cloud: 'aws' as const, clusterName: 'prod-a', logFormat: 'text' as const };

test('--older-than takes Go durations and days; the default is 24h', () => {
  assert.equal(parseOlderThan('7d'), 7 * 86_400_000);
  assert.equal(parseOlderThan('1h30m'), 5_400_000);
  assert.equal(cloudSweepSettings(base, given, false).olderThanMs, 86_400_000);
  assert.throws(() => parseOlderThan('-1h'), /must not be negative/);
  assert.throws(() => parseOlderThan('soon'), /--older-than: invalid duration/);
});

test('--delete without --yes needs a terminal; with one, the settings ask', () => {
  assert.throws(() => cloudSweepSettings({ ...base, delete: true }, given, false), /pass --yes/);
  assert.equal(cloudSweepSettings({ ...base, delete: true }, given, true).yes, false);
  assert.equal(cloudSweepSettings({ ...base, delete: true, yes: true }, given, false).yes, true);
});

test('GCE flags only with --cloud gce; a defaulted --cluster-name is refused', () => {
  assert.throws(() => cloudSweepSettings({ ...base, gceProject: 'p' }, given, false), /go with --cloud gce, not aws/);
  assert.equal(cloudSweepSettings({ ...base, cloud: 'gce', gceProject: 'p' }, given, false).gceProject, 'p');
  assert.throws(() => cloudSweepSettings(base, () => 'default', false), /--cloud needs --cluster-name/);
});

test('ages read as kubectl prints them', () => {
  assert.equal(humanAge(0), '0s');
  assert.equal(humanAge(45_000), '45s');
  assert.equal(humanAge(3_725_000), '1h2m');
  assert.equal(humanAge(2 * 86_400_000 + 3_600_000), '2d1h');
  assert.equal(humanAge(2 * 86_400_000 + 60_000), '2d');
});

test('a cloud-written name cannot send escape sequences or newlines to the terminal', () => {
  assert.equal(safeCell('evil\u001b[2J\nname'), 'evil\\x1b[2J\\x0aname');
  assert.equal(safeCell('prod-a-dynamic-pvc-1'), 'prod-a-dynamic-pvc-1');
});

const saved = { ...process.env };
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

test('--delete asks for the cluster name: a wrong answer deletes nothing (exit 1), the right one deletes the orphans', async () => {
  const ec2 = new Ec2Emulator();
  await ec2.start();
  stops.push(() => ec2.stop());
  Object.assign(process.env, awsEnvironment(ec2));
  const cloud = awsCloud(ec2);
  const p = populate(cloud);
  const before = cloud.volumeIds().sort();
  const settings = { ...base, olderThanMs: 86_400_000, delete: true, yes: false, output: 'json' as const, logLevel: 'error' };
  const questions: string[] = [];
  const wrong = await runCloudSweep(settings, (q) => {
    questions.push(q);
    return Promise.resolve('prod-b');
  });
  assert.equal(wrong, 1);
  assert.match(questions[0], /Delete 2 volume\(s\) \(10 GiB\) and 1 snapshot\(s\) of cluster "prod-a" for good\? Type the cluster name to confirm: /);
  assert.deepEqual(cloud.volumeIds().sort(), before);
  const right = await runCloudSweep(settings, () => Promise.resolve('prod-a\n'));
  assert.equal(right, 0);
  assert.deepEqual(cloud.volumeIds().sort(), before.filter((id) => !p.orphanVolumes.includes(id)));
});
