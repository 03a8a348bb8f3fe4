/**
 * The module loop: the enabled modules of one process, built once, started when this process
 * leads, and asked in turn about every claim and volume key a queue hands out. Each module sees
 * the newest copy the store holds when its turn comes, so a later module decides on what an
 * earlier one just wrote. The queue acts on the most urgent of their answers.
 */
import type { Logger } from 'pino';
import type { KubeObject, PersistentVolume, PersistentVolumeClaim } from '../../kube/types.js';
import type { ControllerContext, ObjectStore } from '../context.js';
import type { ObjectKeyString } from '../../kube/object-key.js';
import { isEnabled, type ControllerModule, type ModuleEnv, type ModuleInstance } from './module.js';
import { DONE, mostUrgent, type SyncResult } from './sync-result.js';

/** What every module's env shares; each gets its own logger and its peers. */
export type SharedModuleEnv = Omit<ModuleEnv, 'logger' | 'peers'>;

export class ModuleSet {
  private readonly instances: ModuleInstance[] = [];

  constructor(modules: readonly ControllerModule[], ctx: ControllerContext, env: SharedModuleEnv, log: Logger) {
    const enabled = modules.filter((m) => isEnabled(m.name, env.options.controllers));
    for (const m of enabled) {
      const instance = m.create(ctx, {
        ...env,
        logger: log.child({ component: m.name }),
        peers: () => this.instances.filter((other) => other !== instance),
      });
      this.instances.push(instance);
    }
  }

  async start(): Promise<void> {
    for (const m of this.instances) await m.start?.();
  }

  async stop(): Promise<void> {
    for (const m of this.instances) await m.stop?.();
  }

  syncClaim(claims: ObjectStore<PersistentVolumeClaim>, key: ObjectKeyString): Promise<SyncResult> {
    return this.syncEach(claims, key, (m, claim) => m.syncClaim?.(claim));
  }

  syncVolume(volumes: ObjectStore<PersistentVolume>, name: string): Promise<SyncResult> {
    return this.syncEach(volumes, name, (m, pv) => m.syncVolume?.(pv));
  }

  private async syncEach<T extends KubeObject>(
    store: ObjectStore<T>,
    key: string,
    sync: (m: ModuleInstance, obj: T) => Promise<SyncResult> | undefined,
  ): Promise<SyncResult> {
    const first = store.get(key);
    if (!first) return DONE;
    const results: SyncResult[] = [];
    for (const m of this.instances) {
      const result = sync(m, store.get(key) ?? first);
      if (result) results.push(await result);
    }
    return mostUrgent(results);
  }
}
