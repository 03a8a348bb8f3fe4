/**
 * The base image, made on this machine: debootstrap a minimal Debian of the host's release from
 * the mirror apt already uses, trim it the way Debian's slim images are trimmed (no docs, man
 * pages, locales or apt lists, and dpkg told to skip them on later installs), and import it into
 * podman's storage (which buildah shares) as localhost/pv-controller-base:<suite>. The folder
 * is cached outside the repository, so only the first run pays for debootstrap.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { imageExists, runCommand } from './podman.js';

export interface DebianSource {
  mirror: string;
  suite: string;
}

/** `$PV_IMAGE_CACHE`, else `$XDG_CACHE_HOME/pv-controller/image-base`, else `~/.cache/pv-controller/image-base`. */
export function imageCacheRoot(): string {
  if (process.env.PV_IMAGE_CACHE) return process.env.PV_IMAGE_CACHE;
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'pv-controller', 'image-base');
}

/** The architectures an image can be made for (Debian's names). */
export type ImageArch = 'amd64' | 'arm64';

/** This machine's architecture, as Debian names it. */
export function debianArch(): ImageArch {
  const arch = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, ImageArch | undefined>)[process.arch];
  if (!arch) throw new Error(`no Debian architecture for ${process.arch}`);
  return arch;
}

/** A local image's tag for `arch`: the plain tag for this machine's, `<tag>-<arch>` for another. */
export function archTag(tag: string, arch: ImageArch): string {
  return arch === debianArch() ? tag : `${tag}-${arch}`;
}

/** The mirrors of one-line (`deb URL suite …`) and deb822 (`URIs:` / `Suites:`) apt sources. */
export function mirrorsOf(text: string, suite: string): string[] {
  const found: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/.exec(line);
    if (m && m[2] === suite) found.push(m[1]);
  }
  for (const block of text.split(/\n\s*\n/)) {
    const field = (name: string): string[] => new RegExp(`^${name}:\\s*(.*)$`, 'mi').exec(block)?.[1].trim().split(/\s+/) ?? [];
    if (field('Types').includes('deb') && field('Suites').includes(suite)) found.push(...field('URIs'));
  }
  return found;
}

/** The host's Debian release and the first mirror apt uses for it. */
export function debianSource(): DebianSource {
  const suite = /^VERSION_CODENAME=(\S+)$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1];
  if (!suite) throw new Error('/etc/os-release names no VERSION_CODENAME: not a Debian release');
  const files = ['/etc/apt/sources.list', ...listDir('/etc/apt/sources.list.d').filter((f) => /\.(list|sources)$/.test(f))];
  for (const file of files) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const mirror = mirrorsOf(text, suite)[0];
    if (mirror) return { mirror, suite };
  }
  throw new Error(`no apt source for ${suite} in ${files.join(', ')}`);
}

function listDir(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).map((f) => join(dir, f)) : [];
}

/** What Debian's slim images leave out, as dpkg path excludes. */
const DPKG_EXCLUDES = `path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/lintian/*
`;

async function trim(rootfs: string): Promise<void> {
  await writeFile(join(rootfs, 'etc', 'dpkg', 'dpkg.cfg.d', 'slim'), DPKG_EXCLUDES);
  const script = [
    'find usr/share/doc -mindepth 1 ! -name copyright ! -type d -delete',
    'find usr/share/doc -mindepth 1 -type d -empty -delete',
    'rm -rf usr/share/man/* usr/share/info/* usr/share/lintian/*',
    'find usr/share/locale -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +',
    'rm -rf var/lib/apt/lists/* var/cache/apt/*.bin var/cache/apt/archives/*.deb var/log/*.log var/log/apt/*',
  ].join(' && ');
  const res = await runCommand('sh', ['-c', `cd '${rootfs}' && ${script}`]);
  if (res.code !== 0) throw new Error(`trimming ${rootfs} failed: ${res.stderr}`);
}

/** debootstrap into the cache folder unless a finished one is there; returns the folder. */
export async function ensureRootfs(source: DebianSource, log: (line: string) => void, arch: ImageArch = debianArch()): Promise<string> {
  const dir = join(imageCacheRoot(), `${source.suite}-${arch}`);
  const rootfs = join(dir, 'rootfs');
  const done = join(dir, 'complete');
  if (existsSync(done)) return rootfs;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  // Another architecture's second stage runs its binaries through qemu-user-static (binfmt_misc).
  log(`debootstrap --variant=minbase --arch=${arch} ${source.suite} from ${source.mirror} into ${rootfs}`);
  const res = await runCommand('debootstrap', ['--variant=minbase', `--arch=${arch}`, source.suite, rootfs, source.mirror], { inherit: true });
  if (res.code !== 0) throw new Error(`debootstrap failed (exit ${res.code})`);
  await trim(rootfs);
  await writeFile(done, `${source.suite} ${source.mirror}\n`);
  return rootfs;
}

/** Imports a folder as an image (a tar of it on podman import's stdin). */
export async function importFolder(folder: string, ref: string, arch: ImageArch = debianArch()): Promise<void> {
  const tar = spawn('tar', ['-C', folder, '--numeric-owner', '-cf', '-', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const res = await runCommand('podman', ['import', '--arch', arch, '-', ref], { input: tar.stdout });
  if (res.code !== 0) throw new Error(`podman import ${ref} failed: ${res.stderr}`);
}

/** localhost/pv-controller-base:<suite> (`-<arch>` for another architecture), made when podman's storage lacks it. */
export async function ensureBaseImage(log: (line: string) => void, arch: ImageArch = debianArch()): Promise<string> {
  const source = debianSource();
  const ref = `localhost/pv-controller-base:${archTag(source.suite, arch)}`;
  if (await imageExists(ref)) return ref;
  const rootfs = await ensureRootfs(source, log, arch);
  log(`importing ${rootfs} as ${ref}`);
  await importFolder(rootfs, ref, arch);
  return ref;
}
