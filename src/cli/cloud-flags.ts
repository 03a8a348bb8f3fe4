/**
 * The cloud flags `controller` and `orphans` share, named like kube-controller-manager's:
 * `--cloud-provider aws|gce|openstack|none` plus what the GCE plugin cannot learn from its SDK's
 * environment. Credentials are never flags: each SDK's standard environment provides them.
 */
import { type Command, Option } from 'commander';
import { CLOUD_PROVIDERS } from '../plugins/from-options.js';

export function addCloudOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--cloud-provider <name>', 'cloud whose volumes to provision/list (credentials from the SDK environment)')
        .choices([...CLOUD_PROVIDERS, 'none'])
        .default('none'),
    )
    .option('--gce-project <project>', 'GCE project (default: GOOGLE_CLOUD_PROJECT, the credentials, or the metadata server)')
    .option('--gce-zone <zone>', 'GCE zone when neither class, selected node nor nodes name one (default: the metadata server)')
    .addOption(new Option('--gce-endpoint <url>', 'Compute API base URL (tests only)').hideHelp());
}
