/**
 * A periodic job that store changes can also wake (the capacity publishers): run every period and
 * soon after a change — once for a burst of changes — never two runs at once, nothing before
 * start or after stop; a failed run is logged and the next one retries.
 */
import type { Logger } from 'pino';
import type { VolumePlugin } from '../../plugins/api/core.js';
import type { ModuleEnv, ModuleInstance } from './module.js';

export interface RefresherOptions {
  periodMs: number;
  /** How long after a change the run starts (changes meanwhile join it). */
  soonMs: number;
  run(): Promise<void>;
  logger: Logger;
  /** Says what failed, e.g. 'publishing storage capacity failed'. */
  failure: string;
  /** Runs once at start, before the first run (its failure is logged, not fatal). */
  prepare?(): Promise<void>;
}

export interface Refresher extends Required<Pick<ModuleInstance, 'start' | 'stop'>> {
  refreshSoon(): void;
}

export function periodicRefresher(o: RefresherOptions): Refresher {
  let timer: NodeJS.Timeout | undefined;
  let soon: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let started = false;
  const refresh = (): void => {
    if (!started) return;
    running ??= o
      .run()
      .catch((err: unknown) => o.logger.warn({ err: (err as Error).message }, `${o.failure}; next period retries`))
      .finally(() => (running = undefined));
  };
  return {
    refreshSoon() {
      soon ??= setTimeout(() => ((soon = undefined), refresh()), o.soonMs);
    },
    async start() {
      started = true;
      await o.prepare?.().catch((err: unknown) => o.logger.warn({ err: (err as Error).message }, `${o.failure} (preparing)`));
      refresh();
      timer = setInterval(refresh, o.periodMs);
      timer.unref();
    },
    async stop() {
      started = false;
      clearInterval(timer);
      clearTimeout(soon);
      await running;
    },
  };
}

/** A volume of these plugins made or deleted, or any class changed: what is left changed, refresh soon. */
export function refreshOnVolumeAndClassChanges(env: ModuleEnv, plugins: VolumePlugin[], refresher: Refresher): void {
  env.changes.volumes.onChange((_name, pv, prev) => {
    const subject = pv ?? prev;
    if (subject && plugins.some((p) => p.handles(subject))) refresher.refreshSoon();
  });
  env.changes.classes.onChange(() => refresher.refreshSoon());
}
