/**
 * podman and buildah as this machine allows them: which tools are missing, and the runtime and
 * rlimits a container can start with. Where the cgroup hierarchy is hybrid (v1 controllers plus
 * a v2 one) crun refuses to start containers and runc is needed; where the process may not raise
 * rlimits (no CAP_SYS_RESOURCE) podman's default nofile/nproc must be lowered. Both are probed,
 * never assumed.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { onPath } from '../cluster/binaries.js';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion, optionally feeding it a stream, and collects its output. */
export function runCommand(cmd: string, args: string[], opts: { input?: NodeJS.ReadableStream; inherit?: boolean } = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const out = opts.inherit ? 'inherit' : 'pipe';
    const child = spawn(cmd, args, { stdio: [opts.input ? 'pipe' : 'ignore', out, out] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    if (opts.input && child.stdin) opts.input.pipe(child.stdin);
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Why images cannot be built and run here, or undefined. */
export function containerToolsMissing(tools: string[] = ['podman', 'buildah', 'debootstrap']): string | undefined {
  const missing = tools.filter((t) => !onPath(t));
  if (missing.length > 0) return `${missing.join(', ')} not installed (Debian: apt-get install ${missing.join(' ')})`;
  if (process.getuid?.() !== 0) return 'building and running the image needs root (debootstrap, rootful podman)';
  return undefined;
}

export interface ContainerSettings {
  /** An OCI runtime other than podman's default. */
  runtime?: string;
  /** `--ulimit` values for podman run. */
  ulimits: string[];
}

/** podman's global flags, then `run` flags, for these settings. */
export function podmanArgs(settings: ContainerSettings, subcommand: string[]): string[] {
  const global = settings.runtime ? ['--runtime', settings.runtime] : [];
  const [command, ...rest] = subcommand;
  const ulimits = command === 'run' ? settings.ulimits.flatMap((u) => ['--ulimit', u]) : [];
  return [...global, command, ...ulimits, ...rest];
}

function softLimit(name: string): number | undefined {
  const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith(name));
  const value = line?.slice(name.length).trim().split(/\s+/)[0];
  return value && /^\d+$/.test(value) ? Number(value) : undefined;
}

function candidates(): ContainerSettings[] {
  const nofile = Math.min(softLimit('Max open files') ?? 1024, 65536);
  // The limits of this process, which it can always keep; 4096 processes are plenty for one Node.js.
  const lowered = [`nofile=${nofile}:${nofile}`, 'nproc=4096:4096'];
  const runtimes: Array<string | undefined> = [undefined, ...(onPath('runc') ? ['runc'] : [])];
  return runtimes.flatMap((runtime) => [{ runtime, ulimits: [] }, { runtime, ulimits: lowered }]);
}

/** The first settings with which `image` runs `true`; throws with every attempt's error. */
export async function probeContainerSettings(image: string): Promise<ContainerSettings> {
  const failures: string[] = [];
  for (const settings of candidates()) {
    const res = await runCommand('podman', podmanArgs(settings, ['run', '--rm', '--network', 'none', '--entrypoint', 'true', image]));
    if (res.code === 0) return settings;
    failures.push(`${JSON.stringify(settings)}: ${res.stderr.trim()}`);
  }
  throw new Error(`podman cannot run a container of ${image} here:\n  ${failures.join('\n  ')}`);
}

export async function imageExists(ref: string): Promise<boolean> {
  return (await runCommand('podman', ['image', 'exists', ref])).code === 0;
}
