/**
 * The embedded API server as the bench runs it: a child process calling the same
 * `startApiServer` the `pv-controller apiserver` command calls (same TLS, token, storage and
 * logger), plus an IPC channel through which the bench reads the server's request counters
 * (requests by verb, 409 Conflicts) without adding HTTP requests of its own to what it counts.
 *
 * Usage (forked with an IPC channel): node apiserver-child.js <data-dir> <memory|sqlite>
 */

/** The parts of h2's server module the bench uses. */
interface ServerModule {
  startApiServer(opts: { dataDir: string; storage: 'memory' | 'sqlite'; listen: string; logger?: unknown }): Promise<{
    kubeconfigPath: string;
    stats(): unknown;
    stop(): Promise<void>;
  }>;
}

interface LogModule {
  createLogger(format: 'json' | 'text'): unknown;
}

export interface StatsRequest {
  type: 'stats';
  id: number;
}

async function main(dataDir: string, storage: 'memory' | 'sqlite'): Promise<void> {
  const server = (await import(new URL('../../src/apiserver/server.js', import.meta.url).href)) as ServerModule;
  const log = (await import(new URL('../../src/apiserver/log.js', import.meta.url).href)) as LogModule;
  const running = await server.startApiServer({
    dataDir,
    storage,
    listen: '127.0.0.1:0',
    logger: log.createLogger('json'),
  });
  process.on('message', (msg: StatsRequest) => {
    if (msg.type === 'stats') process.send?.({ type: 'stats', id: msg.id, stats: running.stats() });
  });
  process.send?.({ type: 'ready', kubeconfig: running.kubeconfigPath });
  const stop = (): void => {
    void running.stop().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('disconnect', stop);
}

const [dataDir, storage] = process.argv.slice(2);
if (!dataDir || (storage !== 'memory' && storage !== 'sqlite')) {
  process.stderr.write('usage: apiserver-child <data-dir> <memory|sqlite>\n');
  process.exit(2);
}
main(dataDir, storage).catch((err: unknown) => {
  process.stderr.write(`apiserver-child: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
