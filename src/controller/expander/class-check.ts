/**
 * A StorageClass may say `allowVolumeExpansion: true` for volumes that can never grow (host-path
 * plain directories, a plugin without expansion): kube-apiserver then lets claims ask for more and
 * every resize ends Infeasible. This says so where the mistake is, once per class and reason, as a
 * Warning event on the StorageClass, when this process leads and whenever the class changes.
 */
import type { StorageClass } from '@pv-controller/kube/types.js';
import { canExpand } from '../../plugins/api/capabilities/expand.js';
import type { PluginRegistry } from '../../plugins/registry.js';
import type { ControllerContext } from '../runtime/context.js';
import { EventReason } from '../runtime/event-reasons.js';

/** Why the claims of this class can never grow though it allows expansion; undefined when they can or it is not ours. */
export function expansionNeverPossible(cls: StorageClass, plugins: PluginRegistry): string | undefined {
  if (cls.allowVolumeExpansion !== true) return undefined;
  const plugin = plugins.byProvisioner(cls.provisioner);
  if (!plugin) return undefined;
  if (!canExpand(plugin)) return `the ${plugin.name} plugin cannot grow volumes`;
  return plugin.neverGrows?.(cls.parameters ?? {});
}

export class ClassExpansionCheck {
  private readonly warned = new Map<string, string>();
  private leading = false;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly plugins: PluginRegistry,
  ) {}

  /** This process leads: check every class it knows. */
  start(): void {
    this.leading = true;
    for (const cls of this.ctx.classes.list()) this.check(cls);
  }

  stop(): void {
    this.leading = false;
  }

  check(cls: StorageClass | undefined): void {
    if (!this.leading || !cls) return;
    const why = expansionNeverPossible(cls, this.plugins);
    const key = cls.metadata.uid ?? cls.metadata.name ?? '';
    if (why === undefined) {
      this.warned.delete(key);
      return;
    }
    if (this.warned.get(key) === why) return;
    this.warned.set(key, why);
    const message = `allowVolumeExpansion is true, but ${why}: every resize of its claims will be refused`;
    this.ctx.events.event({ ...cls, apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass' }, 'Warning', EventReason.ExpansionNeverPossible, message);
  }
}
