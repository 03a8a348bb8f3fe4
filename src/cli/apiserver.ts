/**
 * `pv-controller apiserver`: runs the embedded Kubernetes-compatible API server until SIGTERM
 * or SIGINT, then stops cleanly and exits 0.
 */
import { Command } from 'commander';
import type { LogFormat } from '@pv-controller/kube/log.js';
import { loadEmbeddedApiServer } from './embedded-apiserver.js';
import { logLevelOf } from '../controller/options.js';
import { addOptions, flags, usageError } from './flags.js';

interface ApiServerFlags {
  dataDir: string;
  listen: string;
  storage: 'sqlite' | 'memory';
  logFormat: LogFormat;
  v?: string;
}

async function run(opts: ApiServerFlags, logLevel: string | undefined): Promise<void> {
  const { startApiServer, createLogger } = await loadEmbeddedApiServer();
  const log = createLogger(opts.logFormat, logLevel);
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
  const options = [flags.dataDir(), flags.listen(), flags.storage(), flags.logFormat(), flags.verbosity()];
  addOptions(command, options).action(async (apiFlags: ApiServerFlags, cmd: Command) => {
    // Without -v the level is $LOG_LEVEL's, else info.
    let logLevel: string | undefined;
    try {
      logLevel = apiFlags.v === undefined ? undefined : logLevelOf(apiFlags.v);
    } catch (err) {
      usageError(cmd, err);
    }
    await run(apiFlags, logLevel);
  });
}
