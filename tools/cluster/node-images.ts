/**
 * The images a test node runs, made here (no registry can be reached): the pause image (our
 * static pause program alone) and a test image (Debian's static busybox with a link per applet),
 * each written as an OCI image-layout archive with one uncompressed layer; and the project's
 * own image exported from podman's storage. Each node's containerd imports them with
 * `ctr -n k8s.io images import` (the namespace the CRI plugin reads).
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { imageRef } from '../image/build.js';
import { onPath } from './binaries.js';
import { imagesDir, PAUSE_IMAGE, runtimePath, TEST_IMAGE } from './node-binaries.js';

const BUSYBOX = '/bin/busybox';

interface ImageSpec {
  ref: string;
  /** Fills the layer's root directory. */
  fill(root: string): void;
  entrypoint: string[];
  cmd?: string[];
}

function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

function ociArch(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return arch;
}

/** A reproducible tar of `root` (sorted names, owner root, time 0). */
function tarOf(root: string, out: string): void {
  execFileSync('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '-C', root, '-cf', out, '.'], { stdio: 'ignore' });
}

/** Writes `spec` as an OCI image-layout archive at `out`, named by both annotations ctr reads. */
export function writeOciArchive(spec: ImageSpec, out: string): void {
  const work = mkdtempSync(join(tmpdir(), 'pv-node-image-'));
  try {
    const root = join(work, 'root');
    mkdirSync(root);
    spec.fill(root);
    const layout = join(work, 'layout');
    const blobs = join(layout, 'blobs', 'sha256');
    mkdirSync(blobs, { recursive: true });
    const layerTar = join(work, 'layer.tar');
    tarOf(root, layerTar);
    const layer = readFileSync(layerTar);
    const layerDigest = sha256(layer);
    writeFileSync(join(blobs, layerDigest), layer);
    const config = JSON.stringify({
      architecture: ociArch(),
      os: 'linux',
      config: { Entrypoint: spec.entrypoint.length > 0 ? spec.entrypoint : undefined, Cmd: spec.cmd, Env: ['PATH=/bin'], WorkingDir: '/' },
      rootfs: { type: 'layers', diff_ids: [`sha256:${layerDigest}`] },
      history: [{ created_by: 'pv-controller tools/cluster/node-images.ts' }],
    });
    const configDigest = sha256(config);
    writeFileSync(join(blobs, configDigest), config);
    const manifest = JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: `sha256:${configDigest}`, size: Buffer.byteLength(config) },
      layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: `sha256:${layerDigest}`, size: layer.length }],
    });
    const manifestDigest = sha256(manifest);
    writeFileSync(join(blobs, manifestDigest), manifest);
    const index = {
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: [{
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        digest: `sha256:${manifestDigest}`,
        size: Buffer.byteLength(manifest),
        platform: { architecture: ociArch(), os: 'linux' },
        annotations: { 'io.containerd.image.name': spec.ref, 'org.opencontainers.image.ref.name': spec.ref.split(':').pop() },
      }],
    };
    writeFileSync(join(layout, 'index.json'), JSON.stringify(index));
    writeFileSync(join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
    tarOf(layout, `${out}.partial`);
    execFileSync('mv', [`${out}.partial`, out]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function pauseSpec(): ImageSpec {
  return {
    ref: PAUSE_IMAGE,
    entrypoint: ['/pause'],
    fill(root) {
      copyFileSync(runtimePath('pause'), join(root, 'pause'));
      execFileSync('chmod', ['0755', join(root, 'pause')]);
    },
  };
}

/** The applets this busybox was built with, as `busybox --list` names them. */
function applets(): string[] {
  return execFileSync(BUSYBOX, ['--list'], { encoding: 'utf8' }).split('\n').map((l) => l.trim()).filter((l) => /^[\w.[-]+$/.test(l));
}

function busyboxSpec(): ImageSpec {
  return {
    ref: TEST_IMAGE,
    // As busybox's own image: no entrypoint, `sh` by default, so `kubectl run … -- sh -c '…'` works.
    entrypoint: [],
    cmd: ['sh'],
    fill(root) {
      for (const d of ['bin', 'tmp', 'etc', 'proc', 'sys', 'dev']) mkdirSync(join(root, d));
      copyFileSync(BUSYBOX, join(root, 'bin', 'busybox'));
      execFileSync('chmod', ['0755', join(root, 'bin', 'busybox')]);
      for (const name of applets()) if (name !== 'busybox') symlinkSync('busybox', join(root, 'bin', name));
      writeFileSync(join(root, 'etc', 'passwd'), 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n');
      writeFileSync(join(root, 'etc', 'group'), 'root:x:0:\nnogroup:x:65534:\n');
    },
  };
}

/** Why the test images cannot be made here, or undefined. */
export function nodeImagesProblem(): string | undefined {
  if (!existsSync(BUSYBOX)) return `${BUSYBOX} is missing (Debian: apt-get install busybox-static)`;
  if (!existsSync(runtimePath('pause'))) return `the pause program is not built (${runtimePath('pause')})`;
  return undefined;
}

/** Writes pause.tar and busybox.tar into imagesDir(); returns their paths. */
export function buildNodeImages(dir: string = imagesDir()): string[] {
  const problem = nodeImagesProblem();
  if (problem) throw new Error(problem);
  mkdirSync(dir, { recursive: true });
  const out = [join(dir, 'pause.tar'), join(dir, 'busybox.tar')];
  writeOciArchive(pauseSpec(), out[0]);
  writeOciArchive(busyboxSpec(), out[1]);
  return out;
}

/** The archives every node imports: the two above, and the project's image when asked for. */
export function nodeImageArchives(dir: string = imagesDir()): string[] {
  return [join(dir, 'pause.tar'), join(dir, 'busybox.tar')];
}

/**
 * Exports `ref` (e.g. localhost/pv-controller:<version>, from `npm run image:build`) from podman's
 * storage as an OCI archive at `out`, unless an archive of the same image ID is there already.
 */
export function exportPodmanImage(ref: string, out: string): string {
  const id = execFileSync('podman', ['image', 'inspect', '--format', '{{.Id}}', ref], { encoding: 'utf8' }).trim();
  const stamp = `${out}.id`;
  if (existsSync(out) && existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === id) return out;
  rmSync(out, { force: true });
  execFileSync('podman', ['save', '--format', 'docker-archive', '-o', out, ref], { stdio: 'ignore' });
  writeFileSync(stamp, `${id}\n`);
  return out;
}

export interface ProjectImage {
  /** localhost/pv-controller:<package version>. */
  ref: string;
  /** Its archive, ready for importImages. */
  archive?: string;
  /** Why there is none. */
  problem?: string;
}

/** The project's image (`npm run image:build`) exported into `dir`, or why it cannot be. */
export function projectImageArchive(dir: string, ref: string = imageRef()): ProjectImage {
  if (!onPath('podman')) return { ref, problem: 'podman is not installed' };
  try {
    execFileSync('podman', ['image', 'exists', ref], { stdio: 'ignore' });
  } catch {
    return { ref, problem: `${ref} is not in podman's storage: run \`npm run image:build\`` };
  }
  mkdirSync(dir, { recursive: true });
  return { ref, archive: exportPodmanImage(ref, join(dir, 'pv-controller.tar')) };
}

/** Imports archives into a node's containerd, in the namespace of its CRI plugin. */
export function importImages(address: string, archives: string[]): void {
  for (const archive of archives) {
    execFileSync(runtimePath('ctr'), ['--address', address, '--namespace', 'k8s.io', 'images', 'import', '--snapshotter', 'overlayfs', archive], { stdio: 'pipe' });
  }
}
