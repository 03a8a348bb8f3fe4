import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OAuth2Client } from 'google-auth-library';
import { chooseZonesForVolume } from '../../../src/plugins/cloud-common/zones.js';
import { GcePdPlugin } from '../../../src/plugins/gce-pd/gce-pd-plugin.js';
import { labelKeyOf, labelsForTags } from '../../../src/plugins/gce-pd/labels.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { captureLogger, fastCloudOptions, provisionRequest } from '../../emulators/fixtures.js';
import { GceEmulator } from '../../emulators/gce.js';

describe('gce-pd StorageClass parameters and labels', () => {
  const plugin = new GcePdPlugin({ project: 'p', zone: 'z', authClient: { getRequestHeaders: () => Promise.resolve(new Headers()) } });
  const problemsOf = (parameters: Record<string, string>) => plugin.validateParameters(parameters).map((p) => p.parameter);

  it('accepts the in-tree parameters in any key case', () => {
    assert.deepEqual(plugin.validateParameters({ Type: 'pd-ssd', zones: 'a-1,a-2', 'replication-type': 'Regional-PD', fsType: 'ext4' }), []);
    assert.deepEqual(plugin.validateParameters({ type: 'pd-balanced', zone: 'us-central1-a', 'replication-type': 'none' }), []);
  });

  it('names each invalid parameter', () => {
    assert.deepEqual(problemsOf({ type: 'gp2' }), ['type']);
    assert.deepEqual(problemsOf({ iopsPerGB: '10' }), ['iopsPerGB']);
    assert.deepEqual(problemsOf({ zone: 'a', zones: 'b' }), ['zones']);
    assert.deepEqual(problemsOf({ 'replication-type': 'triple' }), ['replication-type']);
    assert.deepEqual(problemsOf({ 'replication-type': 'regional-pd', zones: 'us-central1-a' }), ['zones']);
    assert.deepEqual(problemsOf({ 'replication-type': 'regional-pd', zone: 'us-central1-a' }), ['zone']);
    assert.match(plugin.validateParameters({ iopsPerGB: '1' })[0].message, /invalid option "iopsPerGB" for volume plugin kubernetes.io\/gce-pd/);
  });

  it('sanitises tag keys into legal label keys and skips values GCE refuses', () => {
    assert.equal(labelKeyOf('kubernetes.io/created-for/pvc/name'), 'kubernetes-io-created-for-pvc-name');
    assert.equal(labelKeyOf('9lives'), 'k9lives');
    assert.equal(labelKeyOf(`kubernetes.io/cluster/${'c'.repeat(80)}`).length, 63);
    assert.deepEqual(labelsForTags({ Name: 'disk', a: 'ok-value_1', b: 'Upper', c: 'x'.repeat(64), d: '' }), { a: 'ok-value_1', d: '' });
  });
});

describe('gce-pd zones, project discovery and secrets', () => {
  const gce = new GceEmulator();
  const log = captureLogger();
  let plugin: GcePdPlugin;
  before(async () => {
    await gce.start();
    const auth = new OAuth2Client({ clientId: gce.clientId, clientSecret: gce.clientSecret, endpoints: { oauth2TokenUrl: gce.tokenUrl } });
    auth.setCredentials({ refresh_token: gce.refreshToken });
    plugin = new GcePdPlugin({
      // No project and no zone: both come from the (emulated) metadata server.
      metadataHost: new URL(gce.url).host,
      endpoint: gce.computeEndpoint,
      authClient: auth,
      ...fastCloudOptions({ logger: log.logger }),
      topology: { zoneOfNode: (node) => Promise.resolve(node === 'node-b' ? 'us-central1-b' : undefined) },
    });
  });
  after(() => gce.stop());
  const req = (pvName: string, claimName = 'c', parameters: Record<string, string> = {}) =>
    provisionRequest({ pvName, claimName, parameters, maxNameLength: 63 });

  it('takes project and default zone from the metadata server when not configured', async () => {
    const saved = process.env.GOOGLE_CLOUD_PROJECT;
    delete process.env.GOOGLE_CLOUD_PROJECT;
    try {
      const result = await plugin.provision(req('pvc-meta'));
      assert.equal(result.labels?.['topology.kubernetes.io/zone'], gce.zones[0]);
      assert.equal(gce.disks().filter((d) => d.name === 'kubernetes-dynamic-pvc-meta').length, 1);
    } finally {
      if (saved !== undefined) process.env.GOOGLE_CLOUD_PROJECT = saved;
    }
  });

  it('picks the zone from the claim name deterministically among the zones parameter', async () => {
    const zones = 'us-central1-a,us-central1-b,us-central1-c';
    const first = await plugin.provision(req('pvc-hash-1', 'web', { zones }));
    const second = await plugin.provision(req('pvc-hash-2', 'web', { zones }));
    assert.equal(first.labels?.['topology.kubernetes.io/zone'], second.labels?.['topology.kubernetes.io/zone']);
    assert.deepEqual([first.labels?.['topology.kubernetes.io/zone']], chooseZonesForVolume(zones.split(','), 'web', 1));
  });

  it('honours the selected node and allowedTopologies', async () => {
    const onNode = await plugin.provision({ ...req('pvc-node'), selectedNode: 'node-b' });
    assert.equal(onNode.labels?.['topology.kubernetes.io/zone'], 'us-central1-b');
    const allowedTopologies = [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['us-central1-c'] }] }];
    const allowed = await plugin.provision({ ...req('pvc-allowed'), allowedTopologies });
    assert.equal(allowed.labels?.['topology.kubernetes.io/zone'], 'us-central1-c');
  });

  it('refuses invalid parameters before calling the cloud', async () => {
    const inserts = gce.faults.calls('disks.insert');
    await assert.rejects(plugin.provision(req('pvc-bad', 'c', { type: 'nvme' })), (err: unknown) =>
      err instanceof PluginError && err.code === 'InvalidParameter' && /type/.test(err.message));
    assert.equal(gce.faults.calls('disks.insert'), inserts);
  });

  it('never logs the refresh token, client secret or access token, even while retrying', async () => {
    gce.faults.inject('disks.insert', 'serverError');
    await plugin.provision(req('pvc-secret'));
    await plugin.delete({ backingName: 'kubernetes-dynamic-pvc-secret' });
    const text = log.text();
    assert.match(text, /creating GCE disk/);
    assert.match(text, /retrying/);
    assert.doesNotMatch(text, new RegExp(gce.refreshToken));
    assert.doesNotMatch(text, new RegExp(gce.clientSecret));
    assert.doesNotMatch(text, /ya29\./);
  });
});
