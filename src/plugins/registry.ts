/**
 * The volume plugins this controller runs, by provisioner name. Picking the plugin for a PV
 * follows upstream's findDeletablePlugin: the `pv.kubernetes.io/provisioned-by` annotation
 * first (the plugin it names owns the PV when its `handles(pv)` agrees); a provisioner we do
 * not run that is not in-tree (`kubernetes.io/...`) belongs to an external provisioner, so no
 * plugin of ours touches it; otherwise the first plugin whose `handles(pv)` recognises the
 * volume source.
 *
 * CSI migration: a StorageClass of a migrated in-tree name (`kubernetes.io/aws-ebs`, ...) is served
 * by exactly one party. Our in-tree plugin when one was registered (an explicit `--cloud-provider`
 * choice); else the plugin of the CSI driver it migrated to when this process drives that driver
 * (`--csi-address`); else nobody here — the binder hands the claim to the driver's external
 * provisioner under the driver's name, as kube-controller-manager does. Registering both an in-tree
 * plugin and the CSI driver it migrated to is refused: two provisioners for one class.
 */
import { ANN_PROVISIONED_BY } from '@pv-controller/kube/annotations.js';
import { csiMigrationTarget } from '@pv-controller/kube/csi-migration.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { VolumePlugin } from './api/core.js';

/** A capability's type guard (`canExpand`, `canRecycle`, ...: api/capabilities/). */
export type CapabilityGuard<C> = (plugin: VolumePlugin) => plugin is VolumePlugin & C;

const IN_TREE_PREFIX = 'kubernetes.io/';

export class PluginRegistry {
  private readonly plugins = new Map<string, VolumePlugin>();

  constructor(plugins: Iterable<VolumePlugin> = []) {
    for (const plugin of plugins) this.register(plugin);
  }

  /** Adds a plugin; a second plugin with the same provisioner name is a programming error. */
  register(plugin: VolumePlugin): void {
    if (this.plugins.has(plugin.name)) throw new Error(`volume plugin "${plugin.name}" is already registered`);
    for (const other of this.plugins.values()) {
      const [inTree, csi] = csiMigrationTarget(plugin.name) === other.name ? [plugin, other] : [other, plugin];
      if (csiMigrationTarget(inTree.name) === csi.name) {
        throw new Error(
          `both the in-tree volume plugin "${inTree.name}" and the CSI driver "${csi.name}" it migrated to are configured: ` +
            'they would both provision its StorageClasses; use one (--cloud-provider or --csi-address)',
        );
      }
    }
    this.plugins.set(plugin.name, plugin);
  }

  /** The plugin serving a StorageClass provisioner; a migrated in-tree name falls to its CSI driver's plugin. */
  byProvisioner(name: string): VolumePlugin | undefined {
    const own = this.plugins.get(name);
    if (own) return own;
    const target = csiMigrationTarget(name);
    return target === undefined ? undefined : this.plugins.get(target);
  }

  /**
   * The plugin that owns a PV (to delete, recycle or measure it), or undefined; with a guard,
   * only when that plugin has the capability (never another plugin that has it).
   */
  forVolume(pv: PersistentVolume): VolumePlugin | undefined;
  forVolume<C>(pv: PersistentVolume, can: CapabilityGuard<C>): (VolumePlugin & C) | undefined;
  forVolume<C>(pv: PersistentVolume, can?: CapabilityGuard<C>): VolumePlugin | undefined {
    const owner = this.ownerOf(pv);
    return owner && (!can || can(owner)) ? owner : undefined;
  }

  private ownerOf(pv: PersistentVolume): VolumePlugin | undefined {
    const provisioner = pv.metadata.annotations?.[ANN_PROVISIONED_BY];
    if (provisioner !== undefined) {
      const named = this.plugins.get(provisioner);
      // The named plugin may still disown it: a node agent, for a volume of another node whose
      // path is the same as one on its own disk.
      if (named) return named.handles(pv) ? named : undefined;
      if (!provisioner.startsWith(IN_TREE_PREFIX)) return undefined;
    }
    for (const plugin of this.plugins.values()) if (plugin.handles(pv)) return plugin;
    return undefined;
  }

  /** Every registered plugin, in registration order. */
  all(): VolumePlugin[] {
    return [...this.plugins.values()];
  }

  /** The registered plugins that have a capability, in registration order. */
  withCapability<C>(can: CapabilityGuard<C>): Array<VolumePlugin & C> {
    return this.all().filter(can);
  }
}
