/**
 * `npm run csi:mock -- --socket PATH [--name DRIVER] [switches]`: builds the CSI mock driver when
 * it is missing or stale (progress on stderr), then runs it in the foreground with the given
 * arguments: its JSON-lines call log on stdout, SIGINT/SIGTERM passed on so it stops gracefully
 * and removes its socket. The switches and the log's shape are documented in
 * tools/k8s/cmd/csi-mock/main.go (`--help` lists them).
 */
import { spawn } from 'node:child_process';
import { csiBinaryPath } from './binaries.js';
import { buildCsi } from './csi-build.js';

async function main(): Promise<number> {
  await buildCsi(['csi-mock']);
  const child = spawn(csiBinaryPath('csi-mock'), process.argv.slice(2), { stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`csi:mock: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
