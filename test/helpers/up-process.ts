/**
 * `pv-controller up` in its own process group, as `npm start` runs it (server + controller, a
 * data dir, SQLite), for tests that drive it from outside: started once its banner is out,
 * stopped by process group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface UpProcess {
  dataDir: string;
  kubeconfigPath: string;
  /** Everything `up` printed so far. */
  output(): string;
  stop(): Promise<void>;
}

export async function startUp(extraArgs: string[] = []): Promise<UpProcess> {
  const root = await mkdtemp(join(tmpdir(), 'pvc-up-'));
  const dataDir = join(root, '.pv-controller');
  const child: ChildProcess = spawn(process.execPath, [CLI, 'up', '--data-dir', dataDir, ...extraArgs], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGTERM');
      await exited;
      await rm(root, { recursive: true, force: true });
    })();
    return stopped;
  };
  try {
    await waitFor(() => /Try:/.test(out), '`up` to print its banner', { timeoutMs: 60_000 });
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n${out}`);
  }
  return { dataDir, kubeconfigPath: join(dataDir, 'kubeconfig'), output: () => out, stop };
}
