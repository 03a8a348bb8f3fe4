import { AwsEbsPlugin } from '../../../src/plugins/aws-ebs/aws-ebs-plugin.js';
import { TAG_AWS_NAME } from '@pv-controller/kube/annotations.js';
import { runPluginConformance } from '../conformance/run.js';
import { Ec2Emulator } from '../../emulators/ec2.js';
import { fastCloudOptions } from '../../emulators/fixtures.js';
import { withoutSnapshot } from '../conformance-view.js';

runPluginConformance('aws-ebs', async () => {
  const ec2 = new Ec2Emulator();
  await ec2.start();
  const plugin = new AwsEbsPlugin({
    region: ec2.region,
    endpoint: ec2.url,
    credentials: { accessKeyId: 'AKIDEMULATOR', secretAccessKey: 'conformance-secret' },
    ...fastCloudOptions(),
  });
  return {
    plugin: withoutSnapshot(plugin),
    cleanup: () => ec2.stop(),
    backingExists: (name) => Promise.resolve(ec2.volumes().some((volume) => volume.tags[TAG_AWS_NAME] === name)),
    parameters: { type: 'gp3', zones: 'us-east-1a,us-east-1b' },
    invalidParameters: { parameters: { type: 'gp3', iopsPerGB: '10' }, parameter: 'iopsPerGB' },
    attributes: { type: 'io2', iops: '8000' },
  };
});
