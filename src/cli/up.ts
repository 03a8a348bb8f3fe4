/**
 * `pv-controller up` — the main job `npm start` runs: the embedded API server and the controller
 * in one process, a default StorageClass `standard` backed by host-path volumes under
 * DIR/volumes, the kubeconfig at DIR/kubeconfig, and a banner with the exact kubectl command to
 * try. The controller still talks to the server only over HTTPS, as it would to a real cluster.
 */
import { Command, type Option } from 'commander';
import { parseFlags } from './controller.js';
import { addOptions, controllerFlags, flags } from './flags.js';
import { csiFlags, pluginFlags } from './plugin-flags.js';
import type { UpFlags } from './up-run.js';


/**
 * Where `up` differs from `controller` and `apiserver`, and why: one process on one machine. The
 * rest of every flag (help text, parsing) is the same definition.
 */
const UP_DEFAULTS: Record<string, unknown> = {
  // A free port, so a second `npm start` or a running kube-apiserver never collides with it.
  '--listen': '127.0.0.1:0',
  // One process: there is no other replica to elect against.
  '--leader-elect': false,
  // The API server runs in this process, on loopback: no shared server to protect.
  '--kube-api-qps': '5000',
  '--kube-api-burst': '10000',
  // A person reads it in a terminal.
  '--log-format': 'text',
};

function withUpDefault(option: Option): Option {
  return option.long !== undefined && option.long in UP_DEFAULTS ? option.default(UP_DEFAULTS[option.long]) : option;
}

export function register(program: Command): void {
  const command = program
    .command('up')
    .description('Run an embedded API server and the controller in one process (what `npm start` runs)');
  const options = [flags.dataDir(), flags.listen(), flags.storage(), ...controllerFlags(), ...pluginFlags(), ...csiFlags()];
  addOptions(command, options.map(withUpDefault)).action(async (upFlags: UpFlags, cmd: Command) => {
    const { opts, plugins } = parseFlags(cmd);
    // The server, the controller, client-node and the cloud SDKs load only now, never for --help.
    const { runUp } = await import('./up-run.js');
    await runUp(upFlags, cmd, opts, plugins);
  });
}
