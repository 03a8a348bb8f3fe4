/**
 * Every process the bench starts runs in its own process group, so a Ctrl-C at the terminal does
 * not reach it. Its own children register their stop here while they run, and the real control
 * plane's processes are listed by tools/cluster/processes.ts; on SIGINT or SIGTERM the bench
 * stops them all (by pid and process group, as their own stop does) before it exits.
 */
import { liveProcesses } from '../../tools/cluster/processes.js';

const running = new Set<() => Promise<void>>();

/** Registers a stop; call the result once the process is stopped. */
export function stopOnSignal(stop: () => Promise<void>): () => void {
  running.add(stop);
  return () => running.delete(stop);
}

export async function stopEverything(): Promise<void> {
  const stops = [...running, ...liveProcesses().map((p) => () => p.stop())];
  running.clear();
  await Promise.all(stops.map((stop) => stop().catch(() => undefined)));
}

/** Makes SIGINT and SIGTERM stop every process, run `cleanUp` (scratch files), then exit 130 / 143. */
export function installSignalCleanup(cleanUp: () => void): void {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.once(signal, () => {
      process.stderr.write(`bench: ${signal}: stopping every process it started\n`);
      void stopEverything().then(() => {
        cleanUp();
        process.exit(code);
      });
    });
  }
}
