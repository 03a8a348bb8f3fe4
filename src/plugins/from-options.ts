/**
 * The volume plugins a controller process serves, built from its options. Plugins that need
 * configuration nobody gave (no host-path root, no NFS mount, no cloud selected) are not
 * registered, so their StorageClasses are left to whoever does serve them (external-provisioner
 * protocol) instead of failing here.
 */
import type { Logger } from 'pino';
import { HostPathPlugin } from './host-path/index.js';
import { NfsSubdirPlugin } from './nfs-subdir/index.js';
import type { VolumePlugin } from './plugin.js';
import { PluginRegistry } from './registry.js';

export interface NfsMount {
  server: string;
  share: string;
  mountPath: string;
}

export interface PluginSettings {
  hostPathRoots: string[];
  nodeName?: string;
  nfsMounts?: NfsMount[];
  /** Further plugins (cloud) built by the caller. */
  extra?: VolumePlugin[];
}

export function buildPluginRegistry(settings: PluginSettings, logger: Logger): PluginRegistry {
  const registry = new PluginRegistry();
  if (settings.hostPathRoots.length > 0) {
    registry.register(
      new HostPathPlugin({
        roots: settings.hostPathRoots,
        ...(settings.nodeName ? { nodeName: settings.nodeName } : {}),
        logger: logger.child({ plugin: 'host-path' }),
      }),
    );
  }
  if (settings.nfsMounts && settings.nfsMounts.length > 0) {
    registry.register(new NfsSubdirPlugin({ mounts: settings.nfsMounts, logger: logger.child({ plugin: 'nfs-subdir' }) }));
  }
  for (const plugin of settings.extra ?? []) registry.register(plugin);
  return registry;
}

/** `--nfs-mount server:/share=/mount/path` → an NfsMount; throws with a message naming the flag. */
export function parseNfsMount(text: string): NfsMount {
  const m = /^([^:=\s]+):(\/[^=\s]*)=(\/\S*)$/.exec(text);
  if (!m) throw new Error(`--nfs-mount must be server:/share=/mount/path, got "${text}"`);
  return { server: m[1]!, share: m[2]!, mountPath: m[3]! };
}
