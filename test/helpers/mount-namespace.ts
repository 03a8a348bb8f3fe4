/**
 * Tests that need mounts run their scenario in a child process inside a private mount namespace
 * (`unshare -m --propagation private`), never on the machine itself: whatever the child mounts
 * is seen by nobody else and vanishes with it. The child (see mount-sandbox.ts) first checks it
 * really is in a namespace of its own, works on a fresh tmpfs, and binds every other mount
 * read-only for itself before it runs anything.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Environment the child reads: the namespace to differ from, and the directory to work in. */
export const HOST_MOUNT_NAMESPACE_ENV = 'PV_TEST_HOST_MOUNT_NAMESPACE';
export const SANDBOX_DIR_ENV = 'PV_TEST_SANDBOX_DIR';

const UNSHARE = ['-m', '--propagation', 'private'];
const CHILD_DEADLINE_MS = 120_000;

/** Why mount tests cannot run here (no `unshare`, not root), or undefined when they can. */
export function mountNamespaceSkipReason(): string | undefined {
  if (process.platform !== 'linux') return 'needs Linux mount namespaces';
  if (process.getuid?.() !== 0) return 'needs root to make a private mount namespace (unshare -m)';
  const probe = spawnSync('unshare', [...UNSHARE, 'true'], { stdio: 'ignore' });
  if (probe.error) return 'needs unshare -m (util-linux), which is not installed';
  if (probe.status !== 0) return 'needs unshare -m (a private mount namespace), which this machine refuses';
  return undefined;
}

/**
 * How to run `node script ...args` in a private mount namespace working in `sandbox` (an empty
 * directory on this side): for a long-running child its caller starts and stops.
 */
export function mountNamespaceCommand(script: string, args: string[], sandbox: string): { file: string; args: string[]; env: NodeJS.ProcessEnv } {
  const env = { ...process.env, [HOST_MOUNT_NAMESPACE_ENV]: readlinkSync('/proc/self/ns/mnt'), [SANDBOX_DIR_ENV]: sandbox };
  return { file: 'unshare', args: [...UNSHARE, process.execPath, script, ...args], env };
}

/**
 * Runs `node script ...args` in a private mount namespace and returns what it printed on stdout
 * as JSON. The child runs in its own process group, killed whatever happens; the sandbox
 * directory it mounted over (empty on this side) is removed afterwards.
 */
export async function runInMountNamespace<T>(script: string, args: string[] = [], deadlineMs = CHILD_DEADLINE_MS): Promise<T> {
  const sandbox = await mkdtemp(join(tmpdir(), 'pvc-mountns-'));
  const command = mountNamespaceCommand(script, args, sandbox);
  const child = spawn(command.file, command.args, { env: command.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const deadline = setTimeout(() => killGroup(child.pid), deadlineMs);
  try {
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (c, s) => resolve([c, s]));
    });
    if (code !== 0) throw new Error(`mount-namespace child exited with ${code ?? signal}:\n${stderr}`);
    return JSON.parse(stdout) as T;
  } finally {
    clearTimeout(deadline);
    killGroup(child.pid);
    await rm(sandbox, { recursive: true, force: true });
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
