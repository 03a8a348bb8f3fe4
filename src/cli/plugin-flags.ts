/**
 * The volume-plugin flags `controller`, `up` and `orphans` share, and their parsing into the
 * PluginSettings plugins/from-options.ts builds the plugins from: host-path roots and node name,
 * NFS mounts, and the cloud, chosen like kube-controller-manager's `--cloud-provider` (aws | gce |
 * openstack | none) plus what the GCE plugin cannot learn from its SDK's environment. Credentials
 * are never flags: each SDK's standard environment provides them. Definitions and parsing only,
 * light to import (every command's `--help` loads this file); plugin-start.ts starts the plugins.
 */
import { Option } from 'commander';
import { parseDuration } from '../controller/options.js';
import type { TopologyResolver } from '../plugins/cloud-common/zones.js';
import { CLOUD_PROVIDERS, type CloudProvider, type CloudSettings, type CsiSettings, type NfsMount, type PluginSettings } from '../plugins/from-options.js';
import { collect, FlagError } from './flags.js';
import { parseAnnotationTags, type AnnotationTag } from '../plugins/cloud-common/annotation-tags.js';
import { hostPathRootFlags, rootLimitsFromFlags, type HostPathRootFlags } from './host-path-root-flags.js';

/** The plugin flags as commander hands them over. */
export interface PluginFlags extends HostPathRootFlags {
  hostPathOvercommitRatio?: string;
  nodeName?: string;
  nfsMount?: string[];
  cloudProvider?: string;
  gceProject?: string;
  gceZone?: string;
  gceEndpoint?: string;
  cloudTagFromAnnotation?: string[];
  csiAddress?: string[];
  csiTimeout?: string;
  csiProbeTimeout?: string;
  csiStrictTopology?: boolean;
}

export function pluginFlags(): Option[] {
  return [
    new Option('--host-path-root <dir>', 'directory host-path volumes live under (repeatable)').argParser(collect),
    ...hostPathRootFlags(),
    new Option('--host-path-overcommit-ratio <ratio>', 'sized host-path volumes (class parameter sizing: image) a root may promise, as a multiple of its filesystem').default('1'),
    new Option('--node-name <name>', 'node this process runs on (host-path volumes)'),
    new Option('--nfs-mount <server:/share=/mount>', 'an NFS export mounted into this process, for nfs-subdir volumes (repeatable)').argParser(collect),
    new Option('--cloud-provider <name>', 'cloud whose volumes to provision/list (credentials from the SDK environment)')
      .choices([...CLOUD_PROVIDERS, 'none'])
      .default('none'),
    new Option('--cloud-tag-from-annotation <annotation=tag>', 'copy this PVC annotation into this tag of the cloud disks made for claims (repeatable; never one of our own tags, values checked against the cloud\'s limits)').argParser(collect),
    new Option('--gce-project <project>', 'GCE project (default: GOOGLE_CLOUD_PROJECT, the credentials, or the metadata server)'),
    new Option('--gce-zone <zone>', 'GCE zone when neither class, selected node nor nodes name one (default: the metadata server)'),
    new Option('--gce-endpoint <url>', 'Compute API base URL (tests only)').hideHelp(),
  ];
}

/** The CSI flags of `controller` and `up` (not of node-agent or orphans: a CSI driver's controller side runs beside the controller). */
export function csiFlags(): Option[] {
  return [
    new Option('--csi-address <socket>', 'unix socket of a CSI driver\'s controller service to provision, delete, expand and modify its volumes through (repeatable; the driver names itself)').argParser(collect),
    new Option('--csi-timeout <duration>', 'deadline of each CSI call (CreateVolume, DeleteVolume, ...)').default('60s'),
    new Option('--csi-probe-timeout <duration>', 'how long to wait at start for each CSI driver to answer Probe ready').default('2m'),
    new Option('--csi-strict-topology', 'with a selected node, ask CSI drivers for a volume reachable from that node only (external-provisioner --strict-topology)').default(false),
  ];
}

/** The CSI settings the flags give (undefined without `--csi-address`); throws a FlagError naming a bad flag. */
export function csiSettingsFromFlags(flags: PluginFlags): CsiSettings | undefined {
  const addresses = flags.csiAddress ?? [];
  if (addresses.length === 0) return undefined;
  for (const address of addresses) {
    const path = address.replace(/^unix:\/\//, '/').replace(/^unix:/, '');
    if (!path.startsWith('/')) throw new FlagError(`--csi-address must be a unix socket path (/path, unix:///path), got "${address}"`);
  }
  if (new Set(addresses).size !== addresses.length) throw new FlagError('--csi-address names the same socket twice');
  return {
    addresses,
    callTimeoutMs: positiveDuration('--csi-timeout', flags.csiTimeout ?? '60s'),
    probeTimeoutMs: positiveDuration('--csi-probe-timeout', flags.csiProbeTimeout ?? '2m'),
    strictTopology: flags.csiStrictTopology === true,
  };
}

function positiveDuration(flag: string, text: string): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (err) {
    throw new FlagError(`${flag}: ${(err as Error).message}`);
  }
  if (!(ms > 0)) throw new FlagError(`${flag} must be longer than 0, got "${text}"`);
  return ms;
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
  const rootLimits = rootLimitsFromFlags(flags);
  const { cloud } = cloudSettingsFromFlags(flags, topology);
  const csi = csiSettingsFromFlags(flags);
  return {
    ...(csi ? { csi } : {}),
    hostPathRoots,
    ...(Object.keys(rootLimits).length > 0 ? { hostPathRootLimits: rootLimits } : {}),
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
  if (provider === undefined) {
    if (flags.cloudTagFromAnnotation?.length) throw new FlagError('--cloud-tag-from-annotation needs --cloud-provider');
    return {};
  }
  let annotationTags: AnnotationTag[] = [];
  try {
    annotationTags = parseAnnotationTags(flags.cloudTagFromAnnotation ?? [], provider);
  } catch (err) {
    throw new FlagError(`--cloud-tag-from-annotation: ${(err as Error).message}`);
  }
  const cloud: CloudSettings = {
    provider,
    ...(annotationTags.length > 0 ? { annotationTags } : {}),
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
