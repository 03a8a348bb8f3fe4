import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CinderPlugin } from '../../../src/plugins/cinder/cinder-plugin.js';
import { loadOpenStackConfig } from '../../../src/plugins/cinder/os-config.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { captureLogger, fastCloudOptions, provisionRequest } from '../../emulators/fixtures.js';
import { OpenStackEmulator } from '../../emulators/openstack.js';

describe('cinder StorageClass parameters', () => {
  const plugin = new CinderPlugin({ env: {} });
  it('accepts type, availability and fsType in any key case', () => {
    assert.deepEqual(plugin.validateParameters({ Type: 'ssd', availability: 'nova', FSTYPE: 'ext4' }), []);
  });
  it('names each invalid parameter', () => {
    assert.deepEqual(plugin.validateParameters({ zone: 'nova' }).map((p) => p.parameter), ['zone']);
    assert.deepEqual(plugin.validateParameters({ availability: ' ' }).map((p) => p.parameter), ['availability']);
    assert.match(plugin.validateParameters({ zone: 'x' })[0].message, /invalid option "zone" for volume plugin kubernetes.io\/cinder/);
  });
});

describe('cinder credentials, zones and secrets', () => {
  const os = new OpenStackEmulator();
  let dir: string;
  before(async () => {
    await os.start();
    dir = await mkdtemp(join(tmpdir(), 'cinder-auth-'));
  });
  after(async () => {
    await os.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('authenticates with an application credential from OS_* variables', async () => {
    const plugin = new CinderPlugin({
      env: { OS_AUTH_URL: os.authUrl, OS_APPLICATION_CREDENTIAL_ID: os.applicationCredentialId, OS_APPLICATION_CREDENTIAL_SECRET: os.applicationCredentialSecret },
      ...fastCloudOptions(),
    });
    await plugin.provision(provisionRequest({ pvName: 'pvc-appcred' }));
    assert.equal(os.volumes().filter((v) => v.name === 'kubernetes-dynamic-pvc-appcred').length, 1);
  });

  it('reads the cloud named by OS_CLOUD from clouds.yaml', async () => {
    const path = join(dir, 'clouds.yaml');
    await writeFile(
      path,
      [
        'clouds:',
        '  mycloud:',
        '    region_name: RegionOne',
        '    auth:',
        `      auth_url: ${os.authUrl}`,
        `      username: ${os.username}`,
        `      password: ${os.password}`,
        `      project_name: ${os.projectName}`,
        '      user_domain_name: Default',
        '      project_domain_name: Default',
      ].join('\n'),
    );
    const config = await loadOpenStackConfig({ OS_CLOUD: 'mycloud', OS_CLIENT_CONFIG_FILE: path });
    assert.equal(config.username, os.username);
    assert.equal(config.regionName, 'RegionOne');
    const plugin = new CinderPlugin({ env: { OS_CLOUD: 'mycloud', OS_CLIENT_CONFIG_FILE: path }, ...fastCloudOptions() });
    const result = await plugin.provision(provisionRequest({ pvName: 'pvc-yaml' }));
    assert.equal(result.labels?.['topology.kubernetes.io/region'], 'RegionOne');
  });

  it('says which variable is missing, without calling Keystone', async () => {
    await assert.rejects(loadOpenStackConfig({ OS_AUTH_URL: os.authUrl, OS_USERNAME: 'u' }), /OS_PASSWORD/);
    const calls = os.faults.calls('auth');
    await assert.rejects(new CinderPlugin({ env: {} }).provision(provisionRequest({ pvName: 'pvc-noenv' })), /OS_AUTH_URL/);
    assert.equal(os.faults.calls('auth'), calls);
  });

  it('fails without retrying when Keystone refuses the credentials', async () => {
    const plugin = new CinderPlugin({ auth: { authUrl: os.authUrl, username: os.username, password: 'wrong', projectName: os.projectName }, ...fastCloudOptions() });
    const calls = os.faults.calls('auth');
    await assert.rejects(plugin.provision(provisionRequest({ pvName: 'pvc-denied' })), (err: unknown) =>
      err instanceof PluginError && err.code === 'Backend' && !err.retryable && /401/.test(err.message));
    assert.equal(os.faults.calls('auth') - calls, 1);
  });

  it('authenticates again when its token is revoked, and never logs secrets or tokens', async () => {
    const log = captureLogger();
    const plugin = new CinderPlugin({
      env: { OS_AUTH_URL: os.authUrl, OS_USERNAME: os.username, OS_PASSWORD: os.password, OS_PROJECT_NAME: os.projectName },
      ...fastCloudOptions({ logger: log.logger }),
    });
    await plugin.provision(provisionRequest({ pvName: 'pvc-revoke-1' }));
    const auths = os.faults.calls('auth');
    os.revokeTokens();
    os.faults.inject('volumes.create', 'serverError');
    await plugin.provision(provisionRequest({ pvName: 'pvc-revoke-2' }));
    assert.equal(os.faults.calls('auth') - auths, 1, 'one new token after the 401');
    const text = log.text();
    assert.match(text, /created Cinder volume/);
    assert.match(text, /retrying/);
    assert.doesNotMatch(text, new RegExp(os.password));
    assert.doesNotMatch(text, /gAAAAAemulated/);
  });

  it('uses the selected node\'s zone, and refuses availability alongside it naming the parameter', async () => {
    const plugin = new CinderPlugin({
      env: { OS_AUTH_URL: os.authUrl, OS_USERNAME: os.username, OS_PASSWORD: os.password, OS_PROJECT_NAME: os.projectName },
      ...fastCloudOptions(),
      topology: { zoneOfNode: () => Promise.resolve('az-2'), zonesWithNodes: () => Promise.resolve(['nova', 'az-2']) },
    });
    const onNode = await plugin.provision(provisionRequest({ pvName: 'pvc-cin-node' }, { selectedNode: 'n1' }));
    assert.equal(onNode.labels?.['topology.kubernetes.io/zone'], 'az-2');
    await assert.rejects(
      plugin.provision(provisionRequest({ pvName: 'pvc-cin-both', parameters: { availability: 'nova' } }, { selectedNode: 'n1' })),
      (err: unknown) => err instanceof PluginError && err.code === 'InvalidParameter' && /availability/.test(err.message),
    );
  });
});
