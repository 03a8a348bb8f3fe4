/**
 * `pv-controller node-agent`: the host-path provisioner for one node, run on every node (a
 * DaemonSet). It serves provisioner `host-path.pv-controller.io` for its own node only: it
 * provisions the WaitForFirstConsumer claims kube-scheduler placed on it (selected-node) as
 * `local` PVs pinned to it, deletes, grows and measures its own node's volumes, and publishes what
 * its roots can still hold as CSIStorageCapacity. Binding, protection and every other plugin stay
 * with the central controller (`pv-controller controller`), which leaves these volumes to the
 * agents. A per-node Lease keeps two agents of one node (a rolling update) from acting at once.
 */
import { Command, Option } from 'commander';
import { addOptions, controllerFlags, flags } from './flags.js';
import { pluginFlags } from './plugin-flags.js';

/** The controller flags that do not apply: the agent's set of controllers is fixed. */
const NOT_FOR_AGENTS = new Set(['--controllers', '--snapshot-role', '--nfs-mount', '--cloud-provider', '--cloud-tag-from-annotation', '--gce-project', '--gce-zone', '--gce-endpoint']);

export function register(program: Command): void {
  const command = program
    .command('node-agent')
    .description('Provision, grow and delete the host-path volumes of this node only (provisioner host-path.pv-controller.io); run one per node');
  const options = [
    flags.kubeconfig(),
    ...controllerFlags()
      .filter((o) => !NOT_FOR_AGENTS.has(o.long ?? ''))
      .map((o) => (o.long === '--leader-elect-resource-name' ? new Option(o.flags, 'name of the Lease (default: pv-controller-node-<node-name>)') : o)),
    ...pluginFlags().filter((o) => !NOT_FOR_AGENTS.has(o.long ?? '')),
    new Option('--capacity-namespace <ns>', 'namespace of the CSIStorageCapacity objects this agent publishes').default(process.env.POD_NAMESPACE ?? 'kube-system'),
    new Option('--node-affinity-label <key>', 'node label the local PVs are pinned by, with this node\'s value (a class may name another: parameters.nodeAffinityLabel); one that outlives the node (a disk or rack label) lets a replacement node carrying it serve the volumes').default('kubernetes.io/hostname'),
    new Option('--capacity-publish-period <duration>', 'how often the capacity is re-published (and soon after each volume change)').default('1m'),
  ];
  addOptions(command, options).action(async (_flags: unknown, cmd: Command) => {
    // The controller, client-node and the plugins load only now, never for --help.
    const { runAgent } = await import('./node-agent-run.js');
    await runAgent(cmd);
  });
}
