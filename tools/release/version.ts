/**
 * Semantic versions and every place the project writes its own: the package.json files and
 * package-lock.json (the three workspace packages and their references to each other),
 * Chart.yaml's version and appVersion, and the image tag in deploy/ and the docs. `bumpVersion`
 * rewrites each and fails when a place no longer holds the old version, so a moved site is found
 * at the next release instead of shipping a stale number.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  prerelease: string[];
}

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?$/;

/** A version as semver.org 2.0.0 writes it (no leading `v`, no build metadata), or undefined. */
export function parseVersion(text: string): SemVer | undefined {
  const m = SEMVER.exec(text);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), prerelease: m[4] ? m[4].split('.') : [] };
}

function compareIdentifiers(a: string, b: string): number {
  const an = /^\d+$/.test(a);
  const bn = /^\d+$/.test(b);
  if (an && bn) return Number(a) - Number(b);
  if (an !== bn) return an ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Negative when a < b, by semver precedence (a pre-release sorts before its release). */
export function compareVersions(a: SemVer, b: SemVer): number {
  for (const key of ['major', 'minor', 'patch'] as const) if (a[key] !== b[key]) return a[key] - b[key];
  if (a.prerelease.length === 0 || b.prerelease.length === 0) return b.prerelease.length - a.prerelease.length;
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const c = compareIdentifiers(a.prerelease[i], b.prerelease[i]);
    if (c !== 0) return c;
  }
  return a.prerelease.length - b.prerelease.length;
}

/** The workspace packages: each package.json, and its key in package-lock.json's `packages`. */
const PACKAGES = [
  { file: 'package.json', lockKey: '' },
  { file: 'packages/kube/package.json', lockKey: 'packages/kube' },
  { file: 'packages/apiserver/package.json', lockKey: 'packages/apiserver' },
] as const;

/** Files whose text names the image by tag (`pv-controller:<version>`). */
export const IMAGE_TAG_FILES = ['README.md', 'docs/install.md', 'deploy/deployment.yaml', 'deploy/node-agent.yaml'] as const;

type JsonObject = Record<string, unknown>;

/** A package's own version and its references to the workspace packages (`@pv-controller/*`). */
function bumpManifest(manifest: JsonObject, from: string, to: string, where: string): void {
  if (manifest.version !== from) throw new Error(`${where}: version is ${String(manifest.version)}, expected ${from}`);
  manifest.version = to;
  for (const field of ['dependencies', 'devDependencies', 'peerDependencies']) {
    const deps = manifest[field] as Record<string, string> | undefined;
    for (const name of Object.keys(deps ?? {})) {
      if (name.startsWith('@pv-controller/') && deps) {
        if (deps[name] !== from) throw new Error(`${where}: ${field}.${name} is ${deps[name]}, expected ${from}`);
        deps[name] = to;
      }
    }
  }
}

async function editJson(path: string, edit: (json: JsonObject) => void): Promise<void> {
  const json = JSON.parse(await readFile(path, 'utf8')) as JsonObject;
  edit(json);
  await writeFile(path, `${JSON.stringify(json, null, 2)}\n`);
}

/** Replaces every match of `pattern` (which must match at least once) with `to` in its group. */
async function editText(path: string, pattern: RegExp, replace: (match: string) => string): Promise<void> {
  const text = await readFile(path, 'utf8');
  let count = 0;
  const out = text.replace(pattern, (m) => {
    count++;
    return replace(m);
  });
  if (count === 0) throw new Error(`${path}: no ${pattern.source} to bump`);
  await writeFile(path, out);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Rewrites every version site in the checkout `dir` from `from` to `to`; returns the files changed. */
export async function bumpVersion(dir: string, from: string, to: string): Promise<string[]> {
  for (const { file } of PACKAGES) await editJson(join(dir, file), (json) => bumpManifest(json, from, to, file));
  await editJson(join(dir, 'package-lock.json'), (lock) => {
    if (lock.version !== from) throw new Error(`package-lock.json: version is ${String(lock.version)}, expected ${from}`);
    lock.version = to;
    const packages = lock.packages as Record<string, JsonObject>;
    for (const { lockKey } of PACKAGES) bumpManifest(packages[lockKey], from, to, `package-lock.json packages["${lockKey}"]`);
  });
  const v = escape(from);
  const chart = join(dir, 'charts/pv-controller/Chart.yaml');
  await editText(chart, new RegExp(`^version: ${v}$`, 'm'), () => `version: ${to}`);
  await editText(chart, new RegExp(`^appVersion: "${v}"$`, 'm'), () => `appVersion: "${to}"`);
  for (const file of IMAGE_TAG_FILES) await editText(join(dir, file), new RegExp(`pv-controller:${v}(?![\\w.-])`, 'g'), () => `pv-controller:${to}`);
  return [...PACKAGES.map((p) => p.file), 'package-lock.json', 'charts/pv-controller/Chart.yaml', ...IMAGE_TAG_FILES];
}
