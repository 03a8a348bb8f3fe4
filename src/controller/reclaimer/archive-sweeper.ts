/**
 * The archive sweeper: on the leader, every sync period, each plugin with the archives capability
 * deletes the archives whose retention has ended (the time is in each archive's name,
 * plugins/fs-common/archive.ts, so a restart loses nothing). One sweep at a time; a failure is
 * logged and the next period tries again.
 */
import type { Logger } from 'pino';
import type { PluginRegistry } from '../../plugins/registry.js';
import { canKeepArchives } from '../../plugins/api/capabilities/archives.js';

export interface ArchiveSweeper {
  start(): void;
  stop(): Promise<void>;
}

export function archiveSweeper(plugins: PluginRegistry, periodMs: number, log: Logger, now: () => Date): ArchiveSweeper {
  const keepers = plugins.all().filter(canKeepArchives);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const controller = new AbortController();
  const sweep = async (): Promise<void> => {
    for (const plugin of keepers) {
      try {
        const swept = await plugin.sweepArchives(now(), controller.signal);
        for (const archive of swept) log.info({ plugin: plugin.name, archive: archive.path, expiredAt: archive.expiresAt?.toISOString(), why: 'archive retention ended' }, 'archive deleted');
      } catch (err) {
        log.warn({ plugin: plugin.name, err: err instanceof Error ? err.message : String(err) }, 'archive sweep failed');
      }
    }
  };
  const tick = (): void => {
    running ??= sweep().finally(() => (running = undefined));
  };
  return {
    start() {
      if (keepers.length === 0) return;
      tick();
      timer = setInterval(tick, Math.max(periodMs, 1000));
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      controller.abort();
      await running;
    },
  };
}
