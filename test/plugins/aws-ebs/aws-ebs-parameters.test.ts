import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AwsEbsPlugin } from '../../../src/plugins/aws-ebs/aws-ebs-plugin.js';
import { chooseZonesForVolume } from '../../../src/plugins/cloud-common/zones.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { Ec2Emulator } from '../../emulators/ec2.js';
import { captureLogger, fastCloudOptions, provisionRequest } from '../../emulators/fixtures.js';

const credentials = { accessKeyId: 'AKIDEMULATOR', secretAccessKey: 'wJalrXUtnFEMI-very-secret' };

describe('aws-ebs StorageClass parameters', () => {
  const plugin = new AwsEbsPlugin({ region: 'us-east-1', credentials, ...fastCloudOptions() });
  const problemsOf = (parameters: Record<string, string>) =>
    plugin.validateParameters(parameters).map((problem) => problem.parameter);

  it('accepts the in-tree parameters in any key case', () => {
    assert.deepEqual(
      plugin.validateParameters({
        type: 'io1',
        ZONES: 'us-east-1a, us-east-1b',
        iopsPerGB: '10',
        Encrypted: 'true',
        kmsKeyId: 'arn:aws:kms:us-east-1:1:key/x',
        fsType: 'ext4',
      }),
      [],
    );
  });

  it('names each invalid parameter', () => {
    assert.deepEqual(problemsOf({ type: 'gp9' }), ['type']);
    assert.deepEqual(problemsOf({ bogus: 'x' }), ['bogus']);
    assert.deepEqual(problemsOf({ zone: 'a', zones: 'b,c' }), ['zones']);
    assert.deepEqual(problemsOf({ zones: 'a,,b' }), ['zones']);
    assert.deepEqual(problemsOf({ type: 'io1', iopsPerGB: 'ten' }), ['iopsPerGB']);
    assert.deepEqual(problemsOf({ iopsPerGB: '10' }), ['iopsPerGB'], 'iopsPerGB on gp2 is meaningless');
    assert.deepEqual(problemsOf({ encrypted: 'yes' }), ['encrypted']);
    assert.deepEqual(problemsOf({ kmsKeyId: 'k' }), ['kmsKeyId'], 'a KMS key needs encrypted: true');
    assert.match(plugin.validateParameters({ bogus: 'x' })[0].message, /invalid option "bogus" for volume plugin kubernetes.io\/aws-ebs/);
  });
});

describe('aws-ebs zone choice and credentials', () => {
  const ec2 = new Ec2Emulator({ zones: ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1d'] });
  const log = captureLogger();
  let plugin: AwsEbsPlugin;
  before(async () => {
    await ec2.start();
    plugin = new AwsEbsPlugin({
      region: ec2.region,
      endpoint: ec2.url,
      credentials,
      ...fastCloudOptions({ logger: log.logger }),
      topology: { zoneOfNode: (node) => Promise.resolve(node === 'node-in-c' ? 'us-east-1c' : undefined) },
    });
  });
  after(() => ec2.stop());

  const zoneOf = async (pvName: string, claimName: string, parameters: Record<string, string> = {}, extra = {}) => {
    const result = await plugin.provision(provisionRequest({ pvName, claimName, parameters }, extra));
    return result.labels?.['topology.kubernetes.io/zone'];
  };

  it('picks the same zone for the same claim name every time, as upstream hashes it', async () => {
    const zones = 'us-east-1a,us-east-1b,us-east-1c,us-east-1d';
    const first = await zoneOf('pvc-z1', 'web', { zones });
    const second = await zoneOf('pvc-z2', 'web', { zones });
    assert.equal(first, second);
    assert.deepEqual([first], chooseZonesForVolume(zones.split(','), 'web', 1));
  });

  it('spreads StatefulSet claims over the zones by their ordinal', async () => {
    const zones = 'us-east-1a,us-east-1b,us-east-1c';
    const chosen = new Set<string | undefined>();
    for (let i = 0; i < 3; i++) chosen.add(await zoneOf(`pvc-sts-${i}`, `data-db-${i}`, { zones }));
    assert.equal(chosen.size, 3);
  });

  it('creates the volume in the selected node\'s zone', async () => {
    assert.equal(await zoneOf('pvc-node', 'x', {}, { selectedNode: 'node-in-c' }), 'us-east-1c');
  });

  it('fails retryably when the selected node has no zone label', async () => {
    await assert.rejects(
      plugin.provision(provisionRequest({ pvName: 'pvc-nolabel' }, { selectedNode: 'unlabelled' })),
      (err: unknown) => err instanceof PluginError && err.retryable && /no topology/.test(err.message),
    );
  });

  it('keeps to allowedTopologies and refuses zone parameters alongside them', async () => {
    const allowedTopologies = [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['us-east-1d'] }] }];
    assert.equal(await zoneOf('pvc-topo', 'x', {}, { allowedTopologies }), 'us-east-1d');
    await assert.rejects(
      plugin.provision(provisionRequest({ pvName: 'pvc-topo2', parameters: { zone: 'us-east-1a' } }, { allowedTopologies })),
      { code: 'InvalidParameter' },
    );
  });

  it('without zone parameters uses a zone the cloud offers', async () => {
    assert.ok(ec2.zones.includes((await zoneOf('pvc-any', 'any'))!));
  });

  it('refuses invalid parameters before calling the cloud', async () => {
    const creates = ec2.faults.calls('CreateVolume');
    await assert.rejects(
      plugin.provision(provisionRequest({ pvName: 'pvc-bad', parameters: { type: 'nvme' } })),
      (err: unknown) => err instanceof PluginError && err.code === 'InvalidParameter' && !err.retryable && /type/.test(err.message),
    );
    assert.equal(ec2.faults.calls('CreateVolume'), creates);
  });

  it('never logs the secret access key, even while retrying', async () => {
    ec2.faults.inject('CreateVolume', 'serverError');
    ec2.faults.inject('DescribeVolumes', 'throttle');
    await plugin.provision(provisionRequest({ pvName: 'pvc-log' }));
    await plugin.delete({ backingName: provisionRequest({ pvName: 'pvc-log' }).backingName });
    const text = log.text();
    assert.match(text, /created EBS volume/, 'the capture does see the plugin\'s lines');
    assert.match(text, /retrying/);
    assert.doesNotMatch(text, /wJalrXUtnFEMI/);
  });

  it('finds its endpoint in AWS_ENDPOINT_URL_EC2 and credentials through the default chain', async () => {
    const names = ['AWS_ENDPOINT_URL_EC2', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] as const;
    const saved = names.map((name) => process.env[name]);
    process.env.AWS_ENDPOINT_URL_EC2 = ec2.url;
    process.env.AWS_ACCESS_KEY_ID = credentials.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = credentials.secretAccessKey;
    try {
      const fromEnv = new AwsEbsPlugin({ region: ec2.region, ...fastCloudOptions() });
      await fromEnv.provision(provisionRequest({ pvName: 'pvc-env' }));
      assert.ok(ec2.volumes().some((volume) => volume.tags.Name === 'kubernetes-dynamic-pvc-env'));
    } finally {
      names.forEach((name, i) => {
        if (saved[i] === undefined) delete process.env[name];
        else process.env[name] = saved[i];
      });
    }
  });
});
