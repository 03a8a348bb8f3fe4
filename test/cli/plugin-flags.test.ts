import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagError } from '../../src/cli/flags.js';
import { cloudSettingsFromFlags, csiSettingsFromFlags, parseCloudProvider, pluginSettingsFromFlags } from '../../src/cli/plugin-flags.js';
import type { TopologyResolver } from '../../src/plugins/cloud-common/zones.js';

const noTopology: TopologyResolver = { zoneOfNode: async () => undefined };

test('host-path roots and the node name come from the flags; none by default; a relative root is refused naming the flag', () => {
  assert.deepEqual(pluginSettingsFromFlags({}).hostPathRoots, []);
  const settings = pluginSettingsFromFlags({ hostPathRoot: ['/srv/a', '/srv/b'], nodeName: 'n1' });
  assert.deepEqual(settings.hostPathRoots, ['/srv/a', '/srv/b']);
  assert.equal(settings.nodeName, 'n1');
  assert.throws(() => pluginSettingsFromFlags({ hostPathRoot: ['relative'] }), (e: unknown) => e instanceof FlagError && /--host-path-root/.test(e.message));
  assert.throws(() => pluginSettingsFromFlags({ nfsMount: ['nfs.example:share'] }), (e: unknown) => e instanceof FlagError && /--nfs-mount/.test(e.message));
});

test('parses --cloud-provider: none and empty mean no cloud, anything unknown is refused naming the flag', () => {
  assert.equal(parseCloudProvider(undefined), undefined);
  assert.equal(parseCloudProvider('none'), undefined);
  assert.equal(parseCloudProvider(''), undefined);
  assert.equal(parseCloudProvider('gce'), 'gce');
  assert.throws(() => parseCloudProvider('azure'), /--cloud-provider must be one of aws, gce, openstack or none, got "azure"/);
});

test('builds cloud settings from flags, carrying the topology resolver the caller gives and none otherwise', () => {
  assert.deepEqual(cloudSettingsFromFlags({ cloudProvider: 'none' }, noTopology), {});
  const flags = { cloudProvider: 'gce', gceProject: 'proj', gceZone: 'europe-west1-b' };
  assert.deepEqual(cloudSettingsFromFlags(flags).cloud, { provider: 'gce', gceProject: 'proj', gceZone: 'europe-west1-b' });
  const { cloud } = cloudSettingsFromFlags(flags, noTopology);
  assert.equal(cloud?.topology, noTopology);
  assert.throws(() => cloudSettingsFromFlags({ cloudProvider: 'azure' }), /--cloud-provider/);
});

test('--csi-address (repeatable) selects CSI drivers by socket, with their call deadline, probe wait and strict topology; bad values are refused naming the flag', () => {
  assert.equal(csiSettingsFromFlags({}), undefined);
  assert.equal(pluginSettingsFromFlags({}).csi, undefined);
  const csi = csiSettingsFromFlags({ csiAddress: ['/run/a.sock', 'unix:///run/b.sock'], csiTimeout: '90s', csiProbeTimeout: '5m', csiStrictTopology: true });
  assert.deepEqual(csi, { addresses: ['/run/a.sock', 'unix:///run/b.sock'], callTimeoutMs: 90_000, probeTimeoutMs: 300_000, strictTopology: true });
  assert.deepEqual(csiSettingsFromFlags({ csiAddress: ['/run/a.sock'] }), { addresses: ['/run/a.sock'], callTimeoutMs: 60_000, probeTimeoutMs: 120_000, strictTopology: false });
  const refused = (flags: Parameters<typeof csiSettingsFromFlags>[0], flag: RegExp) =>
    assert.throws(() => csiSettingsFromFlags(flags), (e: unknown) => e instanceof FlagError && flag.test(e.message));
  refused({ csiAddress: ['localhost:9000'] }, /--csi-address must be a unix socket path/);
  refused({ csiAddress: ['/a.sock', '/a.sock'] }, /--csi-address names the same socket twice/);
  refused({ csiAddress: ['/a.sock'], csiTimeout: '0' }, /--csi-timeout must be longer than 0/);
  refused({ csiAddress: ['/a.sock'], csiProbeTimeout: 'soon' }, /--csi-probe-timeout: invalid duration/);
});
