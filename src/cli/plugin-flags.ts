/**
 * The volume-plugin flags `controller`, `up` and `orphans` share, and their parsing into the
 * PluginSettings plugins/from-options.ts builds the plugins from: host-path roots and node name,
 * NFS mounts, and the cloud, chosen like kube-controller-manager's `--cloud-provider` (aws | gce |
 * openstack | none) plus what the GCE plugin cannot learn from its SDK's environment. Credentials
 * are never flags: each SDK's standard environment provides them.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { Option } from 'commander';
import type { Logger } from 'pino';
import { topologyFromKubeConfig } from '../controller/index.js';
import type { TopologyResolver } from '../plugins/cloud-common/zones.js';
import { buildPluginRegistry, CLOUD_PROVIDERS, type CloudProvider, type CloudSettings, type NfsMount, type PluginSettings } from '../plugins/from-options.js';
import type { PluginRegistry } from '../plugins/registry.js';
import { collect, FlagError } from './flags.js';

/** The plugin flags as commander hands them over. */
export interface PluginFlags {
  hostPathRoot?: string[];
  hostPathOvercommitRatio?: string;
  nodeName?: string;
  nfsMount?: string[];
  cloudProvider?: string;
  gceProject?: string;
  gceZone?: string;
  gceEndpoint?: string;
}

export function pluginFlags(): Option[] {
  return [
    new Option('--host-path-root <dir>', 'directory host-path volumes live under (repeatable)').argParser(collect),
    new Option('--host-path-overcommit-ratio <ratio>', 'sized host-path volumes (class parameter sizing: image) a root may promise, as a multiple of its filesystem').default('1'),
    new Option('--node-name <name>', 'node this process runs on (host-path volumes)'),
    new Option('--nfs-mount <server:/share=/mount>', 'an NFS export mounted into this process, for nfs-subdir volumes (repeatable)').argParser(collect),
    new Option('--cloud-provider <name>', 'cloud whose volumes to provision/list (credentials from the SDK environment)')
      .choices([...CLOUD_PROVIDERS, 'none'])
      .default('none'),
    new Option('--gce-project <project>', 'GCE project (default: GOOGLE_CLOUD_PROJECT, the credentials, or the metadata server)'),
    new Option('--gce-zone <zone>', 'GCE zone when neither class, selected node nor nodes name one (default: the metadata server)'),
    new Option('--gce-endpoint <url>', 'Compute API base URL (tests only)').hideHelp(),
  ];
}

/** The plugin settings the flags give (`topology` for the cloud plugin's node zones); throws a FlagError naming a bad flag. */
export function pluginSettingsFromFlags(flags: PluginFlags, topology?: TopologyResolver): PluginSettings {
  const hostPathRoots = flags.hostPathRoot ?? [];
  for (const root of hostPathRoots) {
    if (!root.startsWith('/')) throw new FlagError(`--host-path-root must be an absolute path, got "${root}"`);
  }
  if (flags.nodeName !== undefined && flags.nodeName.trim() === '') throw new FlagError('--node-name must not be empty');
  const ratio = Number(flags.hostPathOvercommitRatio ?? '1');
  if (!(ratio > 0) || !Number.isFinite(ratio)) throw new FlagError(`--host-path-overcommit-ratio must be a positive number, got "${flags.hostPathOvercommitRatio}"`);
  const { cloud } = cloudSettingsFromFlags(flags, topology);
  return {
    hostPathRoots,
    ...(ratio !== 1 ? { hostPathOvercommitRatio: ratio } : {}),
    nfsMounts: (flags.nfsMount ?? []).map(parseNfsMount),
    ...(flags.nodeName !== undefined ? { nodeName: flags.nodeName } : {}),
    ...(cloud ? { cloud } : {}),
  };
}

/**
 * The cloud the flags select (undefined for none), given `topology` for node zones when the caller
 * has one (the caller owns it and closes it). Throws naming a bad flag.
 */
export function cloudSettingsFromFlags(flags: PluginFlags, topology?: TopologyResolver): { cloud?: CloudSettings } {
  const provider = parseCloudProvider(flags.cloudProvider);
  if (provider === undefined) return {};
  const cloud: CloudSettings = {
    provider,
    ...(flags.gceProject ? { gceProject: flags.gceProject } : {}),
    ...(flags.gceZone ? { gceZone: flags.gceZone } : {}),
    ...(flags.gceEndpoint ? { gceEndpoint: flags.gceEndpoint } : {}),
    ...(topology ? { topology } : {}),
  };
  return { cloud };
}

/** `--cloud-provider` value → a provider, undefined for "" / "none"; throws naming the flag. */
export function parseCloudProvider(text: string | undefined): CloudProvider | undefined {
  if (text === undefined || text === '' || text === 'none') return undefined;
  if ((CLOUD_PROVIDERS as readonly string[]).includes(text)) return text as CloudProvider;
  throw new FlagError(`--cloud-provider must be one of ${CLOUD_PROVIDERS.join(', ')} or none, got "${text}"`);
}

/** `--nfs-mount server:/share=/mount/path` → an NfsMount; throws with a message naming the flag. */
export function parseNfsMount(text: string): NfsMount {
  const m = /^([^:=\s]+):(\/[^=\s]*)=(\/\S*)$/.exec(text);
  if (!m) throw new FlagError(`--nfs-mount must be server:/share=/mount/path, got "${text}"`);
  return { server: m[1]!, share: m[2]!, mountPath: m[3]! };
}

/** The plugins a controller process serves, and what must be closed with it. */
export interface RunningPlugins {
  plugins: PluginRegistry;
  /** Releases the cloud plugin's node-zone resolver (its keep-alive connections). */
  close(): void;
}

/**
 * The plugins `settings` name; a cloud plugin gets a TopologyResolver reading nodes through its own
 * client on `kc`. `settings` comes from pluginSettingsFromFlags (checked before anything starts).
 */
export async function startPlugins(settings: PluginSettings, kc: KubeConfig, logger: Logger): Promise<RunningPlugins> {
  if (!settings.cloud) return { plugins: await buildPluginRegistry(settings, logger), close: () => undefined };
  const { topology, close } = topologyFromKubeConfig(kc);
  try {
    const plugins = await buildPluginRegistry({ ...settings, cloud: { ...settings.cloud, topology } }, logger);
    return { plugins, close };
  } catch (err) {
    close();
    throw err;
  }
}
