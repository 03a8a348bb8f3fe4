/**
 * A controller in its own process, for the kill -9 test: the real host-path plugin, except that
 * with `hang` a provision call never returns after the directory was made, so the test can kill
 * the process exactly between "backing volume created" and "PV object saved".
 *
 *   node provisioning-child.js <kubeconfig> <host-path-root> [hang]
 */
import { pino } from 'pino';
import { startController } from '../../src/controller/controller.js';
import { defaultModules } from '../../src/controller/modules.js';
import { HostPathPlugin } from '../../src/plugins/host-path/index.js';
import type { ProvisionedVolume, ProvisionRequest } from '../../src/plugins/plugin.js';
import { PluginRegistry } from '../../src/plugins/registry.js';
import { testControllerOptions } from '../helpers/cluster.js';

class HangingHostPathPlugin extends HostPathPlugin {
  override async provision(req: ProvisionRequest): Promise<ProvisionedVolume> {
    await super.provision(req);
    process.stdout.write(`provisioned ${req.backingName}\n`);
    return new Promise<never>(() => undefined);
  }
}

async function main(): Promise<void> {
  const [kubeconfig, root, mode] = process.argv.slice(2);
  const plugin = mode === 'hang' ? new HangingHostPathPlugin({ roots: [root] }) : new HostPathPlugin({ roots: [root] });
  const options = testControllerOptions(kubeconfig, root);
  const logger = pino({ level: process.env.PV_TEST_LOG ?? 'silent' });
  await startController(options, { plugins: new PluginRegistry([plugin]), modules: defaultModules(), logger });
  process.stdout.write('ready\n');
}

void main();
