/**
 * A controller in its own process, for the kill -9 tests: the real host-path plugin, except that
 * with `hang` a provision call never returns after the directory was made, so the test can kill
 * the process exactly between "backing volume created" and "PV object saved"; and with
 * `hang-record` the volume record's temporary file is written and synced but never linked into
 * place (it prints `record-temporary <path>`), so the test can kill the writer mid-write.
 *
 *   node provisioning-child.js <kubeconfig> <host-path-root> [hang | hang-record]
 */
import { promises as fs, type PathLike } from 'node:fs';
import { pino } from 'pino';
import { startController } from '../../src/controller/controller.js';
import { defaultModules } from '../../src/controller/modules.js';
import { HostPathPlugin } from '../../src/plugins/host-path/index.js';
import type { ProvisionedVolume, ProvisionRequest } from '../../src/plugins/api/core.js';
import { PluginRegistry } from '../../src/plugins/registry.js';
import { testControllerOptions } from '../helpers/cluster.js';

class HangingHostPathPlugin extends HostPathPlugin {
  override async provision(req: ProvisionRequest): Promise<ProvisionedVolume> {
    await super.provision(req);
    process.stdout.write(`provisioned ${req.backingName}\n`);
    return new Promise<never>(() => undefined);
  }
}

/** writeRecord links its complete temporary file into place: that link never happens. */
function hangBeforeRecordLink(): void {
  fs.link = (existing: PathLike): Promise<never> => {
    process.stdout.write(`record-temporary ${String(existing)}\n`);
    return new Promise<never>(() => undefined);
  };
}

async function main(): Promise<void> {
  const [kubeconfig, root, mode] = process.argv.slice(2);
  if (mode === 'hang-record') hangBeforeRecordLink();
  const plugin = mode === 'hang' ? new HangingHostPathPlugin({ roots: [root] }) : new HostPathPlugin({ roots: [root] });
  const options = testControllerOptions(kubeconfig, root);
  const logger = pino({ level: process.env.PV_TEST_LOG ?? 'silent' });
  await startController(options, { plugins: new PluginRegistry([plugin]), modules: defaultModules(), logger });
  process.stdout.write('ready\n');
}

void main();
