/**
 * `pv-controller apiserver`: runs the embedded Kubernetes-compatible API server until SIGTERM
 * or SIGINT, then stops cleanly and exits 0.
 */
import { Command } from 'commander';
import { createLogger, type LogFormat } from '../apiserver/log.js';
import { startApiServer } from '../apiserver/server.js';
import { addOptions, flags } from './flags.js';

interface ApiServerFlags {
  dataDir: string;
  listen: string;
  storage: 'sqlite' | 'memory';
  logFormat: LogFormat;
}

async function run(opts: ApiServerFlags): Promise<void> {
  const log = createLogger(opts.logFormat);
  const server = await startApiServer({ dataDir: opts.dataDir, listen: opts.listen, storage: opts.storage, logger: log });
  process.stdout.write(`API server listening on ${server.url}\nkubeconfig: ${server.kubeconfigPath}\n`);
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      log.info({ signal }, 'shutting down');
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      resolve();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  await server.stop();
  log.flush();
}

export function register(program: Command): void {
  const command = program
    .command('apiserver')
    .description('Run the embedded Kubernetes-compatible API server (HTTPS, bearer token; writes DIR/kubeconfig)');
  addOptions(command, [flags.dataDir(), flags.listen(), flags.storage(), flags.logFormat()]).action(async (apiFlags: ApiServerFlags) => {
    await run(apiFlags);
  });
}
