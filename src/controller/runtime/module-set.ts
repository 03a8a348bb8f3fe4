/**
 * The module loop: the enabled modules of one process, built once, started when this process
 * leads, and asked in turn about every claim and volume key a queue hands out. Each module sees
 * the newest copy the store holds when its turn comes, so a later module decides on what an
 * earlier one just wrote. The queue acts on the most urgent of their answers.
 *
 * Each module is contained: one whose sync throws for a key is logged under its name and owes
 * that key a retry after its own backoff (client-go's 5 ms doubling to 1000 s, counted per module
 * and key), while the modules after it still sync the key; one whose `start` or `stop` throws
 * does not keep the others from starting or stopping.
 *
 * Every module writes through the stop-guarded context (stop-guarded-api.ts): once `stop` begins,
 * no module writes anything more.
 */
import type { Logger } from 'pino';
import { KeyedBackoff, type BackoffPolicy } from '../../backoff.js';
import type { KubeObject, PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { ControllerContext, ObjectStore } from './context.js';
import type { ObjectKeyString } from '@pv-controller/kube/object-key.js';
import { isEnabled, type ControllerModule, type ModuleEnv, type ModuleInstance } from './module.js';
import { stopGuardedContext } from './stop-guarded-api.js';
import { DONE, mostUrgent, type SyncResult } from './sync-result.js';

/** What every module's env shares; each gets its own logger. */
export type SharedModuleEnv = Omit<ModuleEnv, 'logger'>;

/** A failed module sync is retried as a failed queue sync always was: 5 ms doubling to 1000 s. */
export const MODULE_RETRY_BACKOFF: BackoffPolicy = { initialMs: 5, maxMs: 1_000_000 };

interface Member {
  name: string;
  instance: ModuleInstance;
  log: Logger;
  /** Consecutive failed syncs of this module, per "claim:" / "volume:" key. */
  failures: KeyedBackoff<string>;
}

export class ModuleSet {
  private readonly members: Member[] = [];
  private stopped = false;

  constructor(
    modules: readonly ControllerModule[],
    ctx: ControllerContext,
    env: SharedModuleEnv,
    log: Logger,
    retryBackoff: BackoffPolicy = MODULE_RETRY_BACKOFF,
  ) {
    const guarded = stopGuardedContext(ctx, () => (this.stopped ? 'the controller modules have stopped' : undefined));
    for (const m of modules.filter((m) => isEnabled(m.name, env.options.controllers))) {
      const logger = log.child({ component: m.name });
      const instance = m.create(guarded, { ...env, logger });
      this.members.push({ name: m.name, instance, log: logger, failures: new KeyedBackoff(retryBackoff) });
    }
  }

  /** Starts every module in list order; one that fails to start is logged and the rest still start. */
  async start(): Promise<void> {
    for (const m of this.members) await this.contained(m, 'start', () => m.instance.start?.());
  }

  /**
   * Stops every module in list order; one that fails to stop is logged and the rest still stop.
   * From the first instant of the stop, no module's write or event reaches the API.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const m of this.members) await this.contained(m, 'stop', () => m.instance.stop?.());
  }

  syncClaim(claims: ObjectStore<PersistentVolumeClaim>, key: ObjectKeyString): Promise<SyncResult> {
    return this.syncEach(claims, `claim:${key}`, key, (m, claim) => m.syncClaim?.(claim));
  }

  syncVolume(volumes: ObjectStore<PersistentVolume>, name: string): Promise<SyncResult> {
    return this.syncEach(volumes, `volume:${name}`, name, (m, pv) => m.syncVolume?.(pv));
  }

  private async syncEach<T extends KubeObject>(
    store: ObjectStore<T>,
    retryKey: string,
    key: string,
    sync: (m: ModuleInstance, obj: T) => Promise<SyncResult> | undefined,
  ): Promise<SyncResult> {
    const first = store.get(key);
    if (!first) {
      for (const m of this.members) m.failures.forget(retryKey);
      return DONE;
    }
    const results: SyncResult[] = [];
    for (const m of this.members) {
      const result = await this.syncOne(m, retryKey, () => sync(m.instance, store.get(key) ?? first));
      if (result) results.push(result);
    }
    return mostUrgent(results);
  }

  /** One module's sync of one key: a throw becomes a retry after this module's backoff for the key. */
  private async syncOne(m: Member, retryKey: string, sync: () => Promise<SyncResult> | undefined): Promise<SyncResult | undefined> {
    try {
      const result = await sync();
      if (result) m.failures.forget(retryKey);
      return result;
    } catch (err) {
      const ms = m.failures.fail(retryKey);
      const failures = m.failures.failures(retryKey);
      m.log.error({ module: m.name, key: retryKey, failures, retryInMs: ms, err: errorText(err) }, 'module sync failed');
      return { kind: 'requeueAfter', ms };
    }
  }

  private async contained(m: Member, phase: 'start' | 'stop', run: () => void | Promise<void>): Promise<void> {
    try {
      await run();
    } catch (err) {
      m.log.error({ module: m.name, err: errorText(err) }, `module ${phase} failed`);
    }
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
