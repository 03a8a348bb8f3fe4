/**
 * Runs the compiled `pv-controller` CLI in its own process with a minimal environment (PATH plus
 * what the test gives) and collects its output. `stopCliProcesses` stops any still running, SIGTERM first.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const children = new Set<ChildProcess>();

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Stops every CLI process a test started that has not exited (for afterEach): SIGTERM first, so
 * the CLI's own shutdown runs and stops what it started, then SIGKILL after `graceMs`.
 */
export async function stopCliProcesses(graceMs = 5000): Promise<void> {
  const running = [...children].filter((child) => child.exitCode === null && child.signalCode === null && child.pid !== undefined);
  children.clear();
  await Promise.all(
    running.map(
      (child) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          }, graceMs);
          child.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}
