/**
 * `npm run release`: semantic versions and their order, the CHANGELOG heading, and the whole
 * procedure as a dry run in a scratch clone of a temporary clone of this repository — every
 * version site bumped, the commit, the annotated tag, the SBOM and the packaged chart — with the
 * repository it started from left exactly as it was; and each refusal (dirty tree, red tests,
 * an old or malformed version, a taken tag) changing nothing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../tools/cluster/binaries.js';
import { labelBuildArgs, labelsFor, packageVersion, UNKNOWN_REVISION } from '../../tools/image/build.js';
import { changelogVersions, releaseChangelog } from '../../tools/release/changelog.js';
import { compareVersions, parseVersion } from '../../tools/release/version.js';
import { helm, helmSkip } from '../chart/render.js';

const MAIN = fileURLToPath(new URL('../../tools/release/main.js', import.meta.url));

describe('semantic versions', () => {
  test('parses MAJOR.MINOR.PATCH with an optional pre-release, and refuses a leading v, leading zeros or a missing part', () => {
    assert.deepEqual(parseVersion('1.2.3-rc.1'), { major: 1, minor: 2, patch: 3, prerelease: ['rc', '1'] });
    for (const bad of ['v1.2.3', '1.2', '01.2.3', '1.2.3-', '1.2.3+build', 'latest']) assert.equal(parseVersion(bad), undefined, bad);
  });

  test('orders versions by semver precedence: a pre-release before its release, numeric identifiers as numbers', () => {
    const sorted = ['1.0.0', '0.10.0', '1.0.0-rc.10', '0.9.1', '1.0.0-alpha', '1.0.0-rc.2', '1.0.0-alpha.1'];
    const order = sorted.map((v) => ({ v, p: parseVersion(v) })).sort((a, b) => compareVersions(a.p!, b.p!)).map((x) => x.v);
    assert.deepEqual(order, ['0.9.1', '0.10.0', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-rc.2', '1.0.0-rc.10', '1.0.0']);
  });
});

describe('CHANGELOG.md', () => {
  const text = '# Changelog\n\n## [Unreleased]\n\n### Added\n- a thing\n\n## [0.2.0] - 2026-12-01\n\n### Fixed\n- a bug\n';

  test('a release moves the Unreleased entries under the new heading and leaves Unreleased empty above it', () => {
    const out = releaseChangelog(text, '0.3.0', '2026-12-24');
    assert.equal(out, '# Changelog\n\n## [Unreleased]\n\n## [0.3.0] - 2026-12-24\n\n### Added\n- a thing\n\n## [0.2.0] - 2026-12-01\n\n### Fixed\n- a bug\n');
    assert.deepEqual(changelogVersions(out), ['0.3.0', '0.2.0']);
  });

  test('refuses a release with nothing under Unreleased, and a version it already lists', () => {
    assert.throws(() => releaseChangelog(releaseChangelog(text, '0.3.0', '2026-12-24'), '0.4.0', '2026-12-25'), /lists no change/);
    assert.throws(() => releaseChangelog(text, '0.2.0', '2026-12-24'), /already has a 0.2.0 section/);
  });

  test('the project\'s own CHANGELOG lists its releases newest first, each newer than the one below it', async () => {
    const versions = changelogVersions(await readFile(join(REPO_ROOT, 'CHANGELOG.md'), 'utf8'));
    assert.ok(versions.length >= 1);
    for (let i = 1; i < versions.length; i++) assert.ok(compareVersions(parseVersion(versions[i - 1])!, parseVersion(versions[i])!) > 0, `${versions[i - 1]} > ${versions[i]}`);
  });
});

describe('OCI labels of the image', () => {
  test('outside a git checkout the revision label says unknown instead of failing the build', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'labels-nogit-'));
    try {
      await writeFile(join(dir, 'package.json'), JSON.stringify({ version: '1.2.3', repository: 'https://example.invalid/pv' }));
      const labels = labelsFor(dir, new Date('2026-12-02T10:00:00Z'));
      assert.deepEqual([labels.version, labels.revision, labels.source], ['1.2.3', UNKNOWN_REVISION, 'https://example.invalid/pv']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('carry the package version, the HEAD commit, an RFC 3339 creation time and a source, as build arguments of the Containerfile', async () => {
    const labels = labelsFor(REPO_ROOT, new Date('2026-12-02T10:00:00.123Z'));
    const git = spawnSync('git', ['-C', REPO_ROOT, 'rev-parse', 'HEAD'], { encoding: 'utf8' });
    const head = git.status === 0 ? git.stdout.trim() : UNKNOWN_REVISION;
    assert.deepEqual([labels.version, labels.revision, labels.created], [packageVersion(), head, '2026-12-02T10:00:00Z']);
    assert.ok(labels.source.length > 0);
    const args = labelBuildArgs(labels);
    const containerfile = await readFile(join(REPO_ROOT, 'Containerfile'), 'utf8');
    for (const key of ['VERSION', 'REVISION', 'CREATED', 'SOURCE']) {
      assert.ok(args.includes(`${key}=${labels[key.toLowerCase() as keyof typeof labels]}`), key);
      assert.match(containerfile, new RegExp(`^ARG ${key}=`, 'm'));
    }
    for (const label of ['title', 'description', 'version', 'revision', 'created', 'source', 'licenses']) assert.match(containerfile, new RegExp(`org\\.opencontainers\\.image\\.${label}=`));
  });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function release(args: string[]): Run {
  const res = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 240_000, maxBuffer: 64 * 1024 * 1024 });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

function git(dir: string, args: string[]): string {
  const res = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
  assert.equal(res.status, 0, `git ${args.join(' ')}: ${res.stderr}`);
  return res.stdout.trim();
}

/** Lines that name the old version on purpose: history (CHANGELOG, docs/release.md, upgrade notes), other projects' versions, an IP address. */
const HISTORICAL = /go\.(mod|sum):|CHANGELOG\.md:|docs\/release\.md:|From \*\*\d|'s `system:` name|which \d+\.\d+\.\d+$|chart-\d|carry \d+\.\d+\.\d+'s|\d+\.1\.0\.\d/;

describe('npm run release', { skip: helmSkip }, () => {
  let work = '';
  let repo = '';
  let from = '';
  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'release-test-'));
    repo = join(work, 'repo');
    git(REPO_ROOT, ['clone', '--quiet', REPO_ROOT, repo]);
    git(repo, ['config', 'user.email', 'release-test@example.invalid']);
    git(repo, ['config', 'user.name', 'release test']);
    from = packageVersion(repo);
  });
  after(async () => {
    await rm(work, { recursive: true, force: true });
  });

  const untouched = () => {
    assert.equal(git(repo, ['status', '--porcelain']), '', 'the repository is left clean');
    assert.equal(git(repo, ['tag', '--list', 'v9.*']), '', 'no tag made in the repository');
    assert.equal(packageVersion(repo), from);
  };

  test('--dry-run makes the whole release in a scratch clone: every version bumped, the CHANGELOG heading, the commit and annotated tag, the SBOM and the chart; the repository is unchanged', { timeout: 300_000 }, async () => {
    const clone = join(work, 'dry');
    const run = release(['9.9.9', '--dry-run', '--no-image', '--test-command', 'true', '--repo', repo, '--clone-dir', clone, '--date', '2026-12-24']);
    assert.equal(run.code, 0, run.stderr);
    untouched();
    const commit = git(clone, ['rev-parse', 'HEAD']);
    assert.match(run.stdout, new RegExp(`^v9\\.9\\.9 at ${commit} in ${clone}$`, 'm'));
    assert.equal(git(clone, ['cat-file', '-t', 'v9.9.9']), 'tag', 'an annotated tag');
    assert.equal(git(clone, ['rev-list', '-n', '1', 'v9.9.9']), commit);
    assert.equal(git(clone, ['log', '-1', '--format=%s']), 'release: v9.9.9');
    assert.equal(git(clone, ['status', '--porcelain']), '', 'everything bumped is committed');
    for (const file of ['package.json', 'packages/kube/package.json', 'packages/apiserver/package.json']) {
      const pkg = JSON.parse(await readFile(join(clone, file), 'utf8')) as { version: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
      assert.equal(pkg.version, '9.9.9', file);
      for (const [name, v] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) if (name.startsWith('@pv-controller/')) assert.equal(v, '9.9.9', `${file} ${name}`);
    }
    const lock = JSON.parse(await readFile(join(clone, 'package-lock.json'), 'utf8')) as { version: string; packages: Record<string, { version: string }> };
    assert.deepEqual([lock.version, lock.packages[''].version, lock.packages['packages/kube'].version, lock.packages['packages/apiserver'].version], ['9.9.9', '9.9.9', '9.9.9', '9.9.9']);
    const chart = parse(await readFile(join(clone, 'charts/pv-controller/Chart.yaml'), 'utf8')) as { version: string; appVersion: string };
    assert.deepEqual([chart.version, chart.appVersion], ['9.9.9', '9.9.9']);
    assert.match(await readFile(join(clone, 'deploy/deployment.yaml'), 'utf8'), /image: "pv-controller:9\.9\.9"/);
    const stale = git(clone, ['grep', '-n', '-F', from, '--', ':!package-lock.json']).split('\n').filter((l) => l && !HISTORICAL.test(l));
    assert.deepEqual(stale, [], `no version site still says ${from}`);
    assert.match(await readFile(join(clone, 'CHANGELOG.md'), 'utf8'), /^## \[Unreleased\]\n\n## \[9\.9\.9\] - 2026-12-24\n\n### Added\n/m);
    const sbom = JSON.parse(await readFile(join(clone, 'release/v9.9.9/pv-controller-9.9.9.spdx.json'), 'utf8')) as { spdxVersion: string; name: string; packages: Array<{ name: string }> };
    assert.deepEqual([sbom.spdxVersion, sbom.name], ['SPDX-2.3', 'pv-controller@9.9.9']);
    for (const dep of ['pino', 'prom-client', '@kubernetes/client-node']) assert.ok(sbom.packages.some((p) => p.name === dep), `${dep} in the SBOM`);
    const packaged = spawnSync(helm ?? 'helm', ['show', 'chart', join(clone, 'release/v9.9.9/pv-controller-9.9.9.tgz')], { encoding: 'utf8' });
    assert.match(packaged.stdout, /^version: 9\.9\.9$/m);
  });

  test('refuses, changing nothing, a dirty tree, red tests, a version not newer than the last, a malformed version and a taken tag', { timeout: 120_000 }, async () => {
    const refused = (args: string[], message: RegExp) => {
      const run = release([...args, '--dry-run', '--no-image', '--repo', repo, '--clone-dir', join(work, `refused-${args[0]}`)]);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assert.equal(existsSync(join(work, `refused-${args[0]}`)), false, 'no clone was made');
    };
    await writeFile(join(repo, 'stray.txt'), 'x');
    refused(['9.9.1', '--test-command', 'true'], /the working tree is not clean[\s\S]*stray\.txt/);
    await rm(join(repo, 'stray.txt'));
    refused(['9.9.2', '--test-command', 'exit 3'], /the tests failed \(exit 3: exit 3\)/);
    refused([from, '--test-command', 'true'], new RegExp(`${from.replace(/\./g, '\\.')} is not newer than`));
    refused(['0.0.1', '--test-command', 'true'], /0\.0\.1 is not newer than/);
    refused(['v9.9.3', '--test-command', 'true'], /v9\.9\.3 is not a semantic version/);
    git(repo, ['tag', '-a', 'v9.9.4', '-m', 'taken']);
    refused(['9.9.4', '--test-command', 'true'], /the tag v9\.9\.4 exists already/);
    git(repo, ['tag', '-d', 'v9.9.4']);
    untouched();
  });
});
