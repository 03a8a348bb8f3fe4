/**
 * A controller in its own process for the expansion kill -9 test: the real aws-ebs plugin
 * against the EC2 emulator at `<ec2-url>`, except that an expand call never returns once EBS has
 * grown the volume (it prints `expanded <volume id>`), so the test can kill the process exactly
 * between "the cloud grew the volume" and "the PV and the claim say so".
 *
 *   node expansion-child.js <kubeconfig> <ec2-url>
 */
import { pino } from 'pino';
import { startController } from '../../src/controller/controller.js';
import { defaultModules } from '../../src/controller/modules.js';
import { AwsEbsPlugin } from '../../src/plugins/aws-ebs/aws-ebs-plugin.js';
import type { ExpandedVolume, ExpandRequest } from '../../src/plugins/api/capabilities/expand.js';
import { PluginRegistry } from '../../src/plugins/registry.js';
import { fastCloudOptions } from '../emulators/fixtures.js';
import { testControllerOptions } from '../helpers/cluster.js';
import { AWS_CREDENTIALS } from './cloud-helpers.js';

class HangingEbsPlugin extends AwsEbsPlugin {
  override async expand(req: ExpandRequest): Promise<ExpandedVolume> {
    await super.expand(req);
    process.stdout.write(`expanded ${req.pv.spec.awsElasticBlockStore?.volumeID ?? ''}\n`);
    return new Promise<never>(() => undefined);
  }
}

async function main(): Promise<void> {
  const [kubeconfig, endpoint] = process.argv.slice(2);
  const plugin = new HangingEbsPlugin({ region: 'us-east-1', endpoint, credentials: AWS_CREDENTIALS, ...fastCloudOptions() });
  const options = testControllerOptions(kubeconfig, '/nonexistent', { metricsBindAddress: '0' });
  const logger = pino({ level: process.env.PV_TEST_LOG ?? 'silent' });
  await startController(options, { plugins: new PluginRegistry([plugin]), modules: defaultModules(), logger });
  process.stdout.write('ready\n');
}

void main();
