/**
 * The volume plugins a controller process serves, built from its settings (cli/plugin-flags.ts
 * parses them from the command line). Plugins that need configuration nobody gave (no host-path
 * root, no NFS mount, no cloud selected) are not registered, so their StorageClasses are left to
 * whoever does serve them (external-provisioner protocol) instead of failing here.
 *
 * Clouds are chosen like kube-controller-manager's `--cloud-provider` (aws | gce | openstack; none
 * by default). Each cloud plugin reads its credentials from its SDK's standard environment (AWS
 * default credential chain and AWS_REGION / AWS_ENDPOINT_URL_EC2; GOOGLE_APPLICATION_CREDENTIALS
 * or the metadata server; OS_* or clouds.yaml) and is given the TopologyResolver the caller built
 * (one answering node zones from the Kubernetes API).
 * Nothing here imports the controller. Nothing here logs a credential: only the provider and the
 * non-secret location settings are logged.
 */
import type { Logger } from 'pino';
import type { TopologyResolver } from './cloud-common/zones.js';
import { HostPathPlugin } from './host-path/index.js';
import type { RootLimits } from './host-path/root-placer.js';
import type { AnnotationTag } from './cloud-common/annotation-tags.js';
import { NfsSubdirPlugin } from './nfs-subdir/index.js';
import type { VolumePlugin } from './api/core.js';
import { PluginRegistry } from './registry.js';

export const CLOUD_PROVIDERS = ['aws', 'gce', 'openstack'] as const;
export type CloudProvider = (typeof CLOUD_PROVIDERS)[number];

/** The cloud a process provisions in, and what its SDK's environment does not already say. */
export interface CloudSettings {
  provider: CloudProvider;
  /** GCE project (default: GOOGLE_CLOUD_PROJECT, the credentials, or the metadata server). */
  gceProject?: string;
  /** GCE zone used when neither class, selected node nor nodes name one (default: metadata server). */
  gceZone?: string;
  /** Test-only Compute API base URL (hidden flag); AWS uses the SDK's AWS_ENDPOINT_URL_EC2. */
  gceEndpoint?: string;
  /** Node zones for selectedNode and for classes that name no zone. */
  topology?: TopologyResolver;
  /** PVC annotations copied to disk tags (`--cloud-tag-from-annotation`). */
  annotationTags?: AnnotationTag[];
}

export interface NfsMount {
  server: string;
  share: string;
  mountPath: string;
}

export interface PluginSettings {
  hostPathRoots: string[];
  /** Sized host-path volumes a root may promise, as a multiple of its filesystem (default 1). */
  hostPathOvercommitRatio?: number;
  /** Per host-path root: its capacity and placement weight (`--host-path-root-capacity`, `--host-path-root-weight`). */
  hostPathRootLimits?: Record<string, RootLimits>;
  nodeName?: string;
  nfsMounts?: NfsMount[];
  /** The cloud whose volume plugin to register (none when absent). */
  cloud?: CloudSettings;
  /** Further plugins built by the caller. */
  extra?: VolumePlugin[];
  /** CSI drivers to connect to (`--csi-address`); started by the caller (controller/csi/start.ts), not here. */
  csi?: CsiSettings;
}

/** The CSI drivers a controller drives, one unix socket each (external-provisioner's `--csi-address`). */
export interface CsiSettings {
  addresses: string[];
  /** Per-call deadline of CreateVolume, DeleteVolume, ... (external-provisioner's `--timeout`). */
  callTimeoutMs: number;
  /** How long to wait at start for each driver's Probe to say ready. */
  probeTimeoutMs: number;
  /** external-provisioner's `--strict-topology`: only the selected node's segment is requisite. */
  strictTopology: boolean;
  /** Filled from the controller's `--cluster-name` (backing names and tags). */
  clusterName?: string;
  /**
   * Where the controller keeps its own state (the leader-election namespace and name): the key
   * that proves which CSI volumes it made is a Secret there (controller/provenance/key.ts).
   */
  state?: { namespace: string; name: string };
}

export async function buildPluginRegistry(settings: PluginSettings, logger: Logger): Promise<PluginRegistry> {
  const registry = new PluginRegistry();
  if (settings.hostPathRoots.length > 0) {
    registry.register(
      new HostPathPlugin({
        roots: settings.hostPathRoots,
        ...(settings.nodeName ? { nodeName: settings.nodeName } : {}),
        ...(settings.hostPathOvercommitRatio !== undefined ? { overcommitRatio: settings.hostPathOvercommitRatio } : {}),
        ...(settings.hostPathRootLimits ? { rootLimits: settings.hostPathRootLimits } : {}),
        logger: logger.child({ plugin: 'host-path' }),
      }),
    );
  }
  if (settings.nfsMounts && settings.nfsMounts.length > 0) {
    registry.register(new NfsSubdirPlugin({ mounts: settings.nfsMounts, logger: logger.child({ plugin: 'nfs-subdir' }) }));
  }
  if (settings.cloud) registry.register(await buildCloudPlugin(settings.cloud, logger));
  for (const plugin of settings.extra ?? []) registry.register(plugin);
  return registry;
}

/**
 * The selected cloud's plugin. Its SDK is imported only here, when that cloud is selected: the
 * AWS and Google clients add about 100 MB to a process that would never use them.
 */
export async function buildCloudPlugin(cloud: CloudSettings, logger: Logger): Promise<VolumePlugin> {
  const common = { ...(cloud.topology ? { topology: cloud.topology } : {}), ...(cloud.annotationTags ? { annotationTags: cloud.annotationTags } : {}) };
  switch (cloud.provider) {
    case 'aws': {
      const { AwsEbsPlugin } = await import('./aws-ebs/aws-ebs-plugin.js');
      logger.info({ cloudProvider: 'aws' }, 'registering the aws-ebs volume plugin');
      return new AwsEbsPlugin({ ...common, logger: logger.child({ plugin: 'aws-ebs' }) });
    }
    case 'gce': {
      const { GcePdPlugin } = await import('./gce-pd/gce-pd-plugin.js');
      logger.info({ cloudProvider: 'gce', project: cloud.gceProject, zone: cloud.gceZone }, 'registering the gce-pd volume plugin');
      return new GcePdPlugin({
        ...common,
        logger: logger.child({ plugin: 'gce-pd' }),
        ...(cloud.gceProject ? { project: cloud.gceProject } : {}),
        ...(cloud.gceZone ? { zone: cloud.gceZone } : {}),
        ...(cloud.gceEndpoint ? { endpoint: cloud.gceEndpoint } : {}),
      });
    }
    case 'openstack': {
      const { CinderPlugin } = await import('./cinder/cinder-plugin.js');
      logger.info({ cloudProvider: 'openstack' }, 'registering the cinder volume plugin');
      return new CinderPlugin({ ...common, logger: logger.child({ plugin: 'cinder' }) });
    }
  }
}
