/**
 * Child processes of the control plane: each in its own process group (so stopping it stops
 * whatever it started), its output in a log file, stopped by SIGTERM then SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { createServer } from 'node:net';

export interface ManagedProcess {
  name: string;
  pid: number;
  logPath: string;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  stop(): Promise<void>;
}

const live = new Set<ManagedProcess>();

/** Every process started here that has not exited yet, for a caller's signal handler to stop. */
export function liveProcesses(): ManagedProcess[] {
  return [...live];
}

/** Starts `bin` in its own process group, output appended to `logPath`; `env` is added to this process's environment. */
export function startProcess(name: string, bin: string, args: string[], logPath: string, cwd: string, env: NodeJS.ProcessEnv = {}): ManagedProcess {
  const fd = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(bin, args, { cwd, detached: true, stdio: ['ignore', fd, fd], env: { ...process.env, ...env } });
  } finally {
    closeSync(fd);
  }
  if (child.pid === undefined) throw new Error(`${name} did not start (${bin})`);
  const pid = child.pid;
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  child.once('error', () => undefined);
  let stopping: Promise<void> | undefined;
  const managed: ManagedProcess = {
    name,
    pid,
    logPath,
    exited,
    stop() {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        signalGroup(pid, 'SIGTERM');
        const killer = setTimeout(() => signalGroup(pid, 'SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
        signalGroup(pid, 'SIGKILL');
      })();
      return stopping;
    },
  };
  live.add(managed);
  void exited.then(() => live.delete(managed));
  return managed;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `probe` until it returns true; fails with the log's tail when the process exits first. */
export async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  proc: ManagedProcess,
  readLogTail: () => string,
  timeoutMs = 120_000,
): Promise<void> {
  let exited = false;
  void proc.exited.then(() => (exited = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${proc.name} exited before ${what}:\n${readLogTail()}`);
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms:\n${readLogTail()}`);
}
