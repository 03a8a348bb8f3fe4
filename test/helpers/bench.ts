/** Runs the compiled bench (`bench/main.js`) as a child, in its own process group, to its end. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const benchMain = fileURLToPath(new URL('../../bench/main.js', import.meta.url));

export interface BenchRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runBench(args: string[], env: NodeJS.ProcessEnv = {}): Promise<BenchRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [benchMain, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      try {
        process.kill(-child.pid!, 'SIGKILL'); // anything it left in its process group
      } catch {
        // already gone
      }
      resolve({ code, stdout, stderr });
    });
  });
}
