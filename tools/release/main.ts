/**
 * `npm run release -- <version> [--dry-run] [--no-image] [--test-command CMD] [--repo DIR]`
 * (docs/release.md). Refuses unless the tree is clean, the version is a semantic version newer
 * than package.json's and CHANGELOG.md's, its tag is free and the tests pass (`npm test`, or
 * CMD); then bumps every version site, writes the CHANGELOG heading, commits, writes the SPDX
 * SBOM and the packaged chart into release/v<version>/, builds the image with its OCI labels
 * (unless --no-image) and creates the annotated tag v<version>. `--dry-run` does all of that in
 * a scratch clone (`--clone-dir`, default a new temporary directory, kept and printed) and
 * changes nothing in DIR. Nothing is pushed.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { findHelm, REPO_ROOT } from '../cluster/binaries.js';
import { buildImage, imageRef, packageVersion } from '../image/build.js';
import { containerToolsMissing, runCommand } from '../image/podman.js';
import { changelogVersions, releaseChangelog } from './changelog.js';
import { bumpVersion, compareVersions, parseVersion } from './version.js';

export class ReleaseRefused extends Error {}

export interface ReleaseOptions {
  version: string;
  repo: string;
  dryRun: boolean;
  image: boolean;
  testCommand: string;
  cloneDir?: string;
  date?: string;
  log: (line: string) => void;
}

export interface ReleaseResult {
  /** The checkout the release was made in: the repository, or the dry run's clone. */
  checkout: string;
  tag: string;
  commit: string;
  releaseDir: string;
  artifacts: string[];
}

function git(dir: string, args: string[]): string {
  const res = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`git ${args.join(' ')}: ${res.stderr.trim()}`);
  return res.stdout.trim();
}

/** Every check that needs no change: refuses with a sentence saying what is wrong. */
async function checkReleasable(opts: ReleaseOptions): Promise<{ from: string; helm: string }> {
  const target = parseVersion(opts.version);
  if (!target) throw new ReleaseRefused(`${opts.version} is not a semantic version (MAJOR.MINOR.PATCH, e.g. 0.6.0 or 1.0.0-rc.1; no leading v)`);
  const dirty = git(opts.repo, ['status', '--porcelain']);
  if (dirty) throw new ReleaseRefused(`the working tree is not clean (commit or remove first):\n${dirty.split('\n').slice(0, 10).join('\n')}`);
  const from = packageVersion(opts.repo);
  const listed = changelogVersions(await readFile(join(opts.repo, 'CHANGELOG.md'), 'utf8'));
  for (const v of [from, ...listed]) {
    const older = parseVersion(v);
    if (older && compareVersions(target, older) <= 0) throw new ReleaseRefused(`${opts.version} is not newer than ${v} (package.json says ${from}; CHANGELOG.md lists ${listed.join(', ') || 'none'})`);
  }
  if (spawnSync('git', ['-C', opts.repo, 'rev-parse', '-q', '--verify', `refs/tags/v${opts.version}`]).status === 0) throw new ReleaseRefused(`the tag v${opts.version} exists already`);
  const helm = findHelm();
  if (!helm) throw new ReleaseRefused('helm is neither on PATH nor built (`npm run cluster:build`): it packages the chart');
  if (opts.image) {
    const missing = containerToolsMissing();
    if (missing) throw new ReleaseRefused(`${missing} (the image is part of a release; --no-image leaves it out)`);
  }
  opts.log(`release: tests (${opts.testCommand}) in ${opts.repo}`);
  const tests = spawnSync('sh', ['-c', opts.testCommand], { cwd: opts.repo, stdio: 'inherit' });
  if (tests.status !== 0) throw new ReleaseRefused(`the tests failed (${opts.testCommand}: exit ${tests.status ?? tests.signal}): a release is made from a green tree only`);
  return { from, helm };
}

async function writeSbom(checkout: string, file: string): Promise<void> {
  // The production dependency tree from the lockfile (no node_modules needed): a superset of the
  // image's, which also leaves out the embedded API server's dependencies.
  const res = spawnSync('npm', ['sbom', '--sbom-format', 'spdx', '--omit', 'dev', '--package-lock-only'], { cwd: checkout, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (res.status !== 0) throw new Error(`npm sbom failed: ${res.stderr}`);
  await writeFile(file, res.stdout);
}

export async function release(opts: ReleaseOptions): Promise<ReleaseResult> {
  const { from, helm } = await checkReleasable(opts);
  let checkout = opts.repo;
  if (opts.dryRun) {
    checkout = opts.cloneDir ?? (await mkdtemp(join(tmpdir(), `pv-release-${opts.version}-`)));
    git(opts.repo, ['clone', '--quiet', '--no-local', opts.repo, checkout]);
    opts.log(`release: dry run in the scratch clone ${checkout} (nothing changes in ${opts.repo})`);
  }
  const tag = `v${opts.version}`;
  opts.log(`release: ${from} -> ${opts.version}`);
  const files = await bumpVersion(checkout, from, opts.version);
  const changelog = join(checkout, 'CHANGELOG.md');
  const date = opts.date ?? new Date().toISOString().slice(0, 10);
  await writeFile(changelog, releaseChangelog(await readFile(changelog, 'utf8'), opts.version, date));
  git(checkout, ['add', '--', 'CHANGELOG.md', ...files]);
  git(checkout, ['commit', '--quiet', '-m', `release: ${tag}`]);
  const commit = git(checkout, ['rev-parse', 'HEAD']);
  const releaseDir = join(checkout, 'release', tag);
  await mkdir(releaseDir, { recursive: true });
  const sbom = join(releaseDir, `pv-controller-${opts.version}.spdx.json`);
  await writeSbom(checkout, sbom);
  const chart = await runCommand(helm, ['package', join(checkout, 'charts', 'pv-controller'), '--destination', releaseDir]);
  if (chart.code !== 0) throw new Error(`helm package failed: ${chart.stderr}`);
  const artifacts = [sbom, join(releaseDir, `pv-controller-${opts.version}.tgz`)];
  if (opts.image) {
    const ref = await buildImage({ context: checkout, tags: [imageRef(opts.version)], log: opts.log });
    const inspect = await runCommand('podman', ['image', 'inspect', ref]);
    const image = join(releaseDir, `pv-controller-${opts.version}.image.json`);
    await writeFile(image, inspect.stdout);
    artifacts.push(image);
  } else {
    opts.log('release: --no-image: no image built');
  }
  git(checkout, ['tag', '-a', tag, '-m', `pv-controller ${opts.version}`, commit]);
  return { checkout, tag, commit, releaseDir, artifacts };
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'dry-run': { type: 'boolean', default: false },
      'no-image': { type: 'boolean', default: false },
      'test-command': { type: 'string', default: 'npm test' },
      repo: { type: 'string', default: REPO_ROOT },
      'clone-dir': { type: 'string' },
      date: { type: 'string' },
    },
  });
  if (positionals.length !== 1) {
    process.stderr.write('usage: npm run release -- <version> [--dry-run] [--no-image] [--test-command CMD] [--repo DIR] [--clone-dir DIR]\n');
    return 2;
  }
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const result = await release({
    version: positionals[0],
    repo: resolve(values.repo),
    dryRun: values['dry-run'],
    image: !values['no-image'],
    testCommand: values['test-command'],
    cloneDir: values['clone-dir'],
    date: values.date,
    log,
  });
  process.stdout.write(`${result.tag} at ${result.commit} in ${result.checkout}\n${result.artifacts.map((a) => `  ${a}`).join('\n')}\n`);
  if (!values['dry-run']) process.stdout.write(`push: git push origin HEAD ${result.tag}; publish the chart and push ${imageRef(positionals[0])} (docs/release.md)\n`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`release: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(err instanceof ReleaseRefused || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1);
    },
  );
}
