/**
 * The flags of `pv-controller orphans --cloud` checked into CloudSweepSettings. The cloud mode
 * talks to no cluster, so every flag that names one (or a node's disks) is refused with it, as is
 * a `--cluster-name` left at its default: the sweep deletes by that name, so it must be said.
 * Light to import (no cloud SDK).
 */
import { logLevelOf, parseDuration } from '../controller/options.js';
import type { SweepCloud } from '../plugins/cloud-common/sweep.js';
import { FlagError } from './flags.js';
import type { CloudSweepSettings } from './orphans-cloud.js';

export interface CloudModeFlags {
  cloud?: SweepCloud;
  olderThan?: string;
  yes?: boolean;
  output?: 'table' | 'json';
  clusterName: string;
  delete?: boolean;
  kubeconfig?: string;
  dataDir?: string;
  hostPathRoot?: string[];
  nfsMount?: string[];
  cloudProvider?: string;
  gceProject?: string;
  gceEndpoint?: string;
  logFormat: 'json' | 'text';
  v?: string;
}

export const DEFAULT_OLDER_THAN = '24h';

/** `7d` (days) or a Go duration; at least 0. */
export function parseOlderThan(text: string): number {
  const days = /^(\d+)d$/.exec(text.trim());
  let ms: number;
  try {
    ms = days ? Number(days[1]) * 86_400_000 : parseDuration(text);
  } catch (err) {
    throw new FlagError(`--older-than: ${(err as Error).message} or days such as 7d`);
  }
  if (!(ms >= 0) || !Number.isFinite(ms)) throw new FlagError(`--older-than must not be negative, got "${text}"`);
  return ms;
}

/** Where commander took an option's value from ('default' when nobody gave it). */
export type ValueSource = (key: string) => string | undefined;

export function cloudSweepSettings(f: CloudModeFlags, source: ValueSource, stdinIsTty: boolean): CloudSweepSettings {
  const cloud = f.cloud;
  if (cloud === undefined) throw new FlagError('--cloud is required');
  const clusterBound: Array<[keyof CloudModeFlags, string]> = [
    ['kubeconfig', '--kubeconfig'],
    ['dataDir', '--data-dir'],
    ['hostPathRoot', '--host-path-root'],
    ['nfsMount', '--nfs-mount'],
  ];
  for (const [key, flag] of clusterBound) {
    if (f[key] !== undefined) throw new FlagError(`--cloud talks to no cluster: ${flag} cannot go with it`);
  }
  if (source('cloudProvider') !== 'default' && f.cloudProvider !== undefined) {
    throw new FlagError('--cloud names the cloud itself: --cloud-provider cannot go with it');
  }
  if (source('clusterName') === 'default') throw new FlagError('--cloud needs --cluster-name: the name of the cluster whose leftovers to sweep');
  if (f.clusterName.trim() === '') throw new FlagError('--cluster-name must not be empty');
  if (cloud !== 'gce' && (f.gceProject !== undefined || f.gceEndpoint !== undefined)) throw new FlagError(`--gce-project and --gce-endpoint go with --cloud gce, not ${cloud}`);
  if (f.yes === true && f.delete !== true) throw new FlagError('--yes only goes with --delete');
  if (f.delete === true && f.yes !== true && !stdinIsTty) {
    throw new FlagError('--delete asks for the cluster name on a terminal and there is none: pass --yes to delete without asking');
  }
  return {
    cloud,
    clusterName: f.clusterName,
    olderThanMs: parseOlderThan(f.olderThan ?? DEFAULT_OLDER_THAN),
    delete: f.delete === true,
    yes: f.yes === true,
    output: f.output ?? 'table',
    ...(f.gceProject !== undefined ? { gceProject: f.gceProject } : {}),
    ...(f.gceEndpoint !== undefined ? { gceEndpoint: f.gceEndpoint } : {}),
    logFormat: f.logFormat,
    logLevel: logLevelOf(f.v),
  };
}
