/**
 * `npm run image:build`: the controller's image, built by buildah from the Containerfile with
 * bases made here (tools/image/base.ts, node-image.ts) instead of pulled from a registry. Tags
 * localhost/pv-controller:<package version> and :latest, labels it with the OCI annotations
 * (title, description, version, revision, created, source, licenses) and prints its size.
 * `npm run release` builds the same way from its release checkout (`context`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../cluster/binaries.js';
import { archTag, debianArch, ensureBaseImage, type ImageArch } from './base.js';
import { ensureNodeImage } from './node-image.js';
import { containerToolsMissing, probeContainerSettings, runCommand } from './podman.js';

export function imageRef(tag = packageVersion()): string {
  return `localhost/pv-controller:${tag}`;
}

export function packageVersion(dir = REPO_ROOT): string {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The OCI labels' variable part; title, description and licenses are fixed in the Containerfile. */
export interface ImageLabels {
  version: string;
  revision: string;
  created: string;
  source: string;
}

/** Where the source lives: package.json's repository, else git's origin, else the checkout itself. */
export function sourceUrl(dir = REPO_ROOT): string {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { repository?: string | { url?: string } };
  const fromPackage = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  if (fromPackage) return fromPackage;
  try {
    return execFileSync('git', ['-C', dir, 'remote', 'get-url', 'origin'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return `file://${dir}`;
  }
}

/** HEAD's commit, or undefined where `dir` is not a git checkout (an unpacked tarball). */
export function gitRevision(dir = REPO_ROOT): string | undefined {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** The revision label of a build from outside git: says so rather than naming a commit it cannot know. */
export const UNKNOWN_REVISION = 'unknown';

/** The labels of an image built from `dir` now: package version, HEAD (or `unknown` outside git), this instant, sourceUrl. */
export function labelsFor(dir = REPO_ROOT, now = new Date()): ImageLabels {
  const revision = gitRevision(dir) ?? UNKNOWN_REVISION;
  return { version: packageVersion(dir), revision, created: now.toISOString().replace(/\.\d{3}Z$/, 'Z'), source: sourceUrl(dir) };
}

/** buildah's --build-arg list that sets the Containerfile's label arguments. */
export function labelBuildArgs(labels: ImageLabels): string[] {
  const args = { VERSION: labels.version, REVISION: labels.revision, CREATED: labels.created, SOURCE: labels.source };
  return Object.entries(args).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]);
}

/** The CA file npm trusts, when one is configured (a proxy's): the build's npm must trust it too. */
function npmCaFile(): string | undefined {
  const fromEnv = process.env.NODE_EXTRA_CA_CERTS;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  const configured = execFileSync('npm', ['config', 'get', 'cafile'], { encoding: 'utf8' }).trim();
  return configured && configured !== 'null' && existsSync(configured) ? configured : undefined;
}

export interface BuildOptions {
  /** The checkout to build (default: this one). */
  context?: string;
  /** The image's architecture (default: this machine's); another one's runs its RUN steps through qemu-user-static. */
  arch?: ImageArch;
  /** Tags (default: the package version and latest). */
  tags?: string[];
  log?: (line: string) => void;
}

export async function buildImage(opts: BuildOptions = {}): Promise<string> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const context = opts.context ?? REPO_ROOT;
  const labels = labelsFor(context);
  const arch = opts.arch ?? debianArch();
  const tags = opts.tags ?? [imageRef(archTag(labels.version, arch)), imageRef(archTag('latest', arch))];
  const missing = containerToolsMissing();
  if (missing) throw new Error(missing);
  const started = Date.now();
  const buildBase = await ensureBaseImage(log);
  const buildNode = await ensureNodeImage(log);
  const settings = await probeContainerSettings(buildBase);
  const ca = npmCaFile();
  const args = ['build', '--layers', '-f', join(context, 'Containerfile')];
  if (settings.runtime) args.push('--runtime', settings.runtime);
  args.push('--build-arg', `BUILD_BASE_IMAGE=${buildBase}`, '--build-arg', `BUILD_NODE_IMAGE=${buildNode}`);
  args.push('--build-arg', `BASE_IMAGE=${await ensureBaseImage(log, arch)}`, '--build-arg', `NODE_IMAGE=${await ensureNodeImage(log, arch)}`);
  // No --arch: buildah would then look for the build stage's bases (this machine's) in that architecture and
  // try to pull them. The final stage's base is the other architecture's, so the image is; its RUN steps run
  // through qemu-user-static (binfmt_misc).
  args.push(...labelBuildArgs(labels));
  if (ca) args.push('--volume', `${ca}:/run/build-ca.pem:ro`, '--build-arg', 'NODE_EXTRA_CA_CERTS=/run/build-ca.pem');
  for (const tag of tags) args.push('-t', tag);
  args.push(context);
  log(`buildah ${args.join(' ')}`);
  const res = await runCommand('buildah', args, { inherit: true });
  if (res.code !== 0) throw new Error(`buildah build failed (exit ${res.code})`);
  const size = await runCommand('podman', ['image', 'inspect', '--format', '{{.Size}}', tags[0]]);
  log(`${tags[0]}: ${(Number(size.stdout.trim()) / 1e6).toFixed(0)} MB, built in ${Math.round((Date.now() - started) / 1000)} s`);
  return tags[0];
}

/** `--arch amd64|arm64` from the command line, if given. */
function archArgument(argv: string[]): ImageArch | undefined {
  const i = argv.indexOf('--arch');
  if (i === -1) return undefined;
  const arch = argv[i + 1];
  if (arch !== 'amd64' && arch !== 'arm64') throw new Error(`--arch must be amd64 or arm64 (got ${String(arch)})`);
  return arch;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  Promise.resolve()
    .then(() => buildImage({ arch: archArgument(process.argv.slice(2)) }))
    .then(
      (ref) => process.stdout.write(`${ref}\n`),
      (err: unknown) => {
        process.stderr.write(`image:build: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
}
