/**
 * The Node.js lines the project supports agree everywhere they are written: CI runs the smoke
 * subset on each current LTS line, the image's included (no whole second run: the cold CI budget),
 * each inside package.json's engines, and scripts/test-node.sh's smoke subset names test files
 * that exist.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../../tools/cluster/binaries.js';
import { imageNodeVersion } from '../../tools/image/node-image.js';
import { findTestFiles, testName } from '../../tools/testing/test-files.js';

const ci = readFileSync(join(REPO_ROOT, '.ci', 'run'), 'utf8');
const runs = [...ci.matchAll(/^step scripts\/test-node\.sh (\S+)( --smoke)?$/gm)].map((m) => ({ version: m[1], smoke: Boolean(m[2]) }));
const major = (v: string) => Number(v.split('.')[0]);

test('CI runs the smoke subset on every current LTS line, the image\'s Node.js included, and no whole second run', () => {
  assert.deepEqual(runs.filter((r) => !r.smoke), [], 'a whole second run does not fit a cold CI\'s 60 minutes (docs/release.md, "Node.js")');
  assert.deepEqual(runs.map((r) => major(r.version)).sort(), [22, 24, 26]);
  assert.ok(runs.some((r) => r.version === imageNodeVersion()), `the image's Node.js ${imageNodeVersion()} is one of them`);
});

test('every Node.js line CI or the image runs is within package.json\'s engines, and engines still admits the machines\' Node 20', () => {
  const engines = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  const majors = engines.split('||').map((r) => Number(/\^(\d+)\./.exec(r.trim())?.[1]));
  for (const v of [...runs.map((r) => r.version), imageNodeVersion()]) assert.ok(majors.includes(major(v)), `${v} in ${engines}`);
  assert.ok(majors.includes(20), 'npm ci && npm start keep working on the machines\' Node 20');
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { engines?: { node: string } }> };
  assert.equal(lock.packages[''].engines?.node, engines, 'package-lock.json records the same engines');
});

test('the smoke subset of scripts/test-node.sh names test files that exist', () => {
  const script = readFileSync(join(REPO_ROOT, 'scripts', 'test-node.sh'), 'utf8');
  const smoke = /^smoke=\(([^)]*)\)$/m.exec(script)?.[1].split(/\s+/).filter(Boolean) ?? [];
  assert.ok(smoke.length >= 5, script);
  const dist = join(REPO_ROOT, 'dist');
  const names = findTestFiles(dist).map((f: string) => testName(dist, f));
  for (const filter of smoke) assert.ok(names.some((n: string) => n.includes(filter)), `${filter} matches a test file`);
});
