/**
 * `npm run image:build`: the controller's image, built by buildah from the Containerfile with
 * bases made here (tools/image/base.ts, node-image.ts) instead of pulled from a registry. Tags
 * localhost/pv-controller:<package version> and :latest, and prints the image's size.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../cluster/binaries.js';
import { ensureBaseImage } from './base.js';
import { ensureNodeImage } from './node-image.js';
import { containerToolsMissing, probeContainerSettings, runCommand } from './podman.js';

export function imageRef(tag = packageVersion()): string {
  return `localhost/pv-controller:${tag}`;
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The CA file npm trusts, when one is configured (a proxy's): the build's npm must trust it too. */
function npmCaFile(): string | undefined {
  const fromEnv = process.env.NODE_EXTRA_CA_CERTS;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  const configured = execFileSync('npm', ['config', 'get', 'cafile'], { encoding: 'utf8' }).trim();
  return configured && configured !== 'null' && existsSync(configured) ? configured : undefined;
}

export async function buildImage(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<string> {
  const missing = containerToolsMissing();
  if (missing) throw new Error(missing);
  const started = Date.now();
  const base = await ensureBaseImage(log);
  const node = await ensureNodeImage(log);
  const settings = await probeContainerSettings(base);
  const ca = npmCaFile();
  const args = ['build', '--layers', '-f', join(REPO_ROOT, 'Containerfile')];
  if (settings.runtime) args.push('--runtime', settings.runtime);
  args.push('--build-arg', `BASE_IMAGE=${base}`, '--build-arg', `NODE_IMAGE=${node}`);
  if (ca) args.push('--volume', `${ca}:/run/build-ca.pem:ro`, '--build-arg', 'NODE_EXTRA_CA_CERTS=/run/build-ca.pem');
  args.push('-t', imageRef(), '-t', imageRef('latest'), REPO_ROOT);
  log(`buildah ${args.join(' ')}`);
  const res = await runCommand('buildah', args, { inherit: true });
  if (res.code !== 0) throw new Error(`buildah build failed (exit ${res.code})`);
  const size = await runCommand('podman', ['image', 'inspect', '--format', '{{.Size}}', imageRef()]);
  log(`${imageRef()}: ${(Number(size.stdout.trim()) / 1e6).toFixed(0)} MB, built in ${Math.round((Date.now() - started) / 1000)} s`);
  return imageRef();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildImage().then(
    (ref) => process.stdout.write(`${ref}\n`),
    (err: unknown) => {
      process.stderr.write(`image:build: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
