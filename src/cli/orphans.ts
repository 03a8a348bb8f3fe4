/**
 * `pv-controller orphans`: backing volumes that carry this cluster's mark but that no PV and no
 * provisioning claim accounts for, from every plugin configured by the flags (cloud, host-path
 * roots, NFS mounts). Prints them as a table; `--delete` removes them one by one, re-checking the
 * cluster just before each delete, and prints what happened to each. Stray files (temporary
 * volume records a killed write left) are listed in a second table; `--delete` has the plugin
 * remove those no write in progress can own. The logic is controller/orphan-monitor/orphans.ts; this file
 * parses flags, wires and prints.
 *
 * Exit status: 0; 1 when a plugin could not list its volumes or stray files, or an orphan or a
 * stray file could not be removed; 2 on bad flags.
 *
 * `--cloud aws|gce|cinder` is the other mode: no cluster at all (no kubeconfig, no data dir), only
 * cloud credentials, sweeping the volumes and snapshots a gone cluster left (orphans-cloud.ts).
 */
import { Command, Option } from 'commander';
import { logLevelOf } from '../controller/options.js';
import type { PluginSettings } from '../plugins/from-options.js';
import { addOptions, FlagError, flags, usageError } from './flags.js';
import { pluginFlags, pluginSettingsFromFlags } from './plugin-flags.js';
import type { OrphansFlags } from './orphans-run.js';
import { findClusterSource, upVolumesRoot } from './up-data-dir.js';
import { SWEEP_CLOUDS } from '../plugins/cloud-common/sweep.js';
import { type CloudModeFlags, cloudSweepSettings } from './orphans-cloud-flags.js';
import type { CloudSweepSettings } from './orphans-cloud.js';

/** Plugin flags that do not apply to listing and deleting backing volumes. */
const NOT_FOR_ORPHANS = new Set(['--node-name']);

export function register(program: Command): void {
  const command = program
    .command('orphans')
    .description(
      'List (or --delete) backing volumes of this cluster that no PV or provisioning claim refers to; ' +
        'with --cloud, the cloud volumes and snapshots a gone cluster left (no cluster needed)',
    );
  const options = [
    flags.kubeconfig(),
    flags.upDataDir(),
    new Option('--delete', 'delete the orphans found (each re-checked just before its delete) and the stray files no write in progress can own'),
    flags.clusterName(),
    ...pluginFlags().filter((o) => !NOT_FOR_ORPHANS.has(o.long ?? '')),
    new Option('--cloud <cloud>', 'sweep a gone cluster\'s cloud volumes and snapshots by its tags, with cloud credentials and no cluster (dry run unless --delete)').choices([...SWEEP_CLOUDS]),
    new Option('--older-than <duration>', '--cloud: only volumes and snapshots older than this are deleted (Go duration, or days: 7d) [default: 24h]'),
    new Option('--yes', '--cloud --delete: do not ask for the cluster name (scripts)'),
    // As `usage` says it (one help text per flag); only --cloud reports in JSON.
    new Option('-o, --output <format>', 'table | json').choices(['table', 'json']).default('table'),
    // A report for a person: text (the report itself is on stdout, the log on stderr).
    flags.logFormat().default('text'),
    flags.verbosity(),
  ];
  addOptions(command, options).action(async (_flags: unknown, cmd: Command) => {
    const orphanFlags = cmd.opts<OrphansFlags & CloudModeFlags>();
    if (orphanFlags.cloud !== undefined) {
      let sweep: CloudSweepSettings;
      try {
        sweep = cloudSweepSettings(orphanFlags, (key) => cmd.getOptionValueSource(key), process.stdin.isTTY === true);
      } catch (err) {
        usageError(cmd, err);
      }
      const { runCloudSweep } = await import('./orphans-cloud.js');
      process.exitCode = await runCloudSweep(sweep);
      return;
    }
    for (const [only, flag] of [['olderThan', '--older-than'], ['yes', '--yes'], ['output', '--output']] as const) {
      if (orphanFlags[only] !== undefined && cmd.getOptionValueSource(only) !== 'default') usageError(cmd, new FlagError(`${flag} only goes with --cloud`));
    }
    const source = findClusterSource(orphanFlags);
    // An `up` cluster keeps its host-path volumes in its data dir: look there unless told otherwise.
    if (source.dataDir !== undefined && orphanFlags.hostPathRoot === undefined) orphanFlags.hostPathRoot = [upVolumesRoot(source.dataDir)];
    let settings: PluginSettings;
    let logLevel: string;
    try {
      logLevel = logLevelOf(orphanFlags.v);
      if (orphanFlags.clusterName.trim() === '') throw new FlagError('--cluster-name must not be empty');
      // Listing and deleting never choose a zone: no topology resolver.
      settings = pluginSettingsFromFlags(orphanFlags);
    } catch (err) {
      usageError(cmd, err);
    }
    if (source.notice) process.stderr.write(`pv-controller orphans: ${source.notice}\n`);
    // The plugins, the cloud SDKs and client-node load only now, never for --help.
    const { runOrphans } = await import('./orphans-run.js');
    process.exitCode = await runOrphans({ ...orphanFlags, kubeconfig: source.kubeconfig }, settings, logLevel);
  });
}
