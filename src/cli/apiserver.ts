/**
 * `pv-controller apiserver`: runs the embedded Kubernetes-compatible API server until SIGTERM
 * or SIGINT, then stops cleanly and exits 0.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { createLogger, type LogFormat } from '../apiserver/log.js';
import { startApiServer } from '../apiserver/server.js';

interface ApiServerFlags {
  dataDir: string;
  listen: string;
  storage: 'sqlite' | 'memory';
  logFormat: LogFormat;
}

function hostPort(value: string): string {
  if (!/^(\[[^\]]+\]|[^:]*):\d{1,5}$/.test(value)) throw new InvalidArgumentError('expected host:port, e.g. 127.0.0.1:6443');
  return value;
}

async function run(flags: ApiServerFlags): Promise<void> {
  const log = createLogger(flags.logFormat);
  const server = await startApiServer({ dataDir: flags.dataDir, listen: flags.listen, storage: flags.storage, logger: log });
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
  program
    .command('apiserver')
    .description('Run the embedded Kubernetes-compatible API server (HTTPS, bearer token; writes DIR/kubeconfig)')
    .requiredOption('--data-dir <dir>', 'directory for storage, TLS material, token and kubeconfig')
    .option('--listen <host:port>', 'address to listen on (port 0 picks a free port)', hostPort, '127.0.0.1:6443')
    .addOption(new Option('--storage <kind>', 'object storage').choices(['sqlite', 'memory']).default('sqlite'))
    .addOption(new Option('--log-format <format>', 'log output').choices(['json', 'text']).default('json'))
    .action(async (flags: ApiServerFlags) => {
      await run(flags);
    });
}
