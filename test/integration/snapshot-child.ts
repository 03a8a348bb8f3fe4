/**
 * A controller in its own process for the snapshot kill test: the file-backed test plugin, whose
 * create writes the backend snapshot, prints `cut <id>` and never returns, so the test can kill
 * the process between the backend call and the record of its answer.
 *
 *   node snapshot-child.js <kubeconfig> <backend-dir>
 */
import { pino } from 'pino';
import { startController } from '../../src/controller/controller.js';
import { defaultModules } from '../../src/controller/modules.js';
import { PluginRegistry } from '../../src/plugins/registry.js';
import { testControllerOptions } from '../helpers/cluster.js';
import { FileSnapshotPlugin } from './snapshot-helpers.js';

async function main(): Promise<void> {
  const [kubeconfig, dir] = process.argv.slice(2);
  const options = testControllerOptions(kubeconfig, dir);
  const logger = pino({ level: process.env.PV_TEST_LOG ?? 'silent' });
  const plugins = new PluginRegistry([new FileSnapshotPlugin(dir, true)]);
  await startController(options, { plugins, modules: defaultModules({ snapshot: { probePeriodMs: 200 } }), logger });
  process.stdout.write('ready\n');
}

void main();
