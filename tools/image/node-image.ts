/**
 * Node.js for the image, from the npm registry through the npm client: the registry's
 * node-linux-<arch> package (what the `node` package installs) carries the official build's
 * bin/node and include/node, and the `npm` package is npm itself. Laid out as the official node
 * image lays them out (/usr/local/bin/node, /usr/local/include/node,
 * /usr/local/lib/node_modules/npm) and imported as localhost/pv-controller-node:<version>, so
 * the Containerfile's NODE_IMAGE can be either.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../cluster/binaries.js';
import { archTag, debianArch, importFolder, type ImageArch } from './base.js';
import { imageExists, runCommand } from './podman.js';

const run = promisify(execFile);

/** npm for the image's build stage (npm ci): the newest 11.x, which runs on every Node.js line the image may name (20.17+, 22.9+, 24, 26). */
export const NPM_VERSION = '11.21.2';

/** The Node.js version the Containerfile's ARG NODE_VERSION names. */
export function imageNodeVersion(): string {
  const m = /^ARG NODE_VERSION=(\d+\.\d+\.\d+)$/m.exec(readFileSync(join(REPO_ROOT, 'Containerfile'), 'utf8'));
  if (!m) throw new Error('the Containerfile has no ARG NODE_VERSION=X.Y.Z');
  return m[1];
}

function nodePackage(version: string, arch: ImageArch): string {
  return `node-linux-${arch === 'amd64' ? 'x64' : arch}@${version}`;
}

/** `npm pack` one package into `dir`; returns the tarball's path. */
async function pack(spec: string, dir: string): Promise<string> {
  const { stdout } = await run('npm', ['pack', spec, '--pack-destination', dir, '--silent'], { cwd: dir });
  return join(dir, stdout.trim().split('\n').pop() ?? '');
}

async function untar(tarball: string, into: string, members: string[] = []): Promise<void> {
  await mkdir(into, { recursive: true });
  const res = await runCommand('tar', ['-xzf', tarball, '--strip-components=1', '-C', into, ...members]);
  if (res.code !== 0) throw new Error(`tar -xzf ${tarball} failed: ${res.stderr}`);
}

export async function ensureNodeImage(log: (line: string) => void, arch: ImageArch = debianArch()): Promise<string> {
  const version = imageNodeVersion();
  const ref = `localhost/pv-controller-node:${archTag(version, arch)}`;
  if (await imageExists(ref)) return ref;
  const work = await mkdtemp(join(tmpdir(), 'pv-node-image-'));
  try {
    log(`npm pack ${nodePackage(version, arch)} npm@${NPM_VERSION}`);
    const local = join(work, 'rootfs', 'usr', 'local');
    await untar(await pack(nodePackage(version, arch), work), local, ['package/bin/node', 'package/include']);
    await untar(await pack(`npm@${NPM_VERSION}`, work), join(local, 'lib', 'node_modules', 'npm'));
    await symlink('../lib/node_modules/npm/bin/npm-cli.js', join(local, 'bin', 'npm'));
    await symlink('../lib/node_modules/npm/bin/npx-cli.js', join(local, 'bin', 'npx'));
    log(`importing Node.js ${version} as ${ref}`);
    await importFolder(join(work, 'rootfs'), ref, arch);
    return ref;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
