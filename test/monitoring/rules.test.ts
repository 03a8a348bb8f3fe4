/**
 * The Prometheus rules shipped in the chart, checked by Prometheus's own promtool: the file
 * loads, and test/monitoring/rules.test.yaml (every alert firing on series that should fire it,
 * silent on series that should not) passes.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { onPath, REPO_ROOT } from '../../tools/cluster/binaries.js';
import { alertNames, alertRunbooks, headingAnchors, PROMETHEUS_RULES } from './monitoring.js';

const run = promisify(execFile);
const promtool = onPath('promtool');
const skip = promtool ? false : 'promtool is not installed (Debian: apt-get install prometheus)';
const RULE_TESTS = join(REPO_ROOT, 'test', 'monitoring', 'rules.test.yaml');
const RUNBOOK = 'docs/runbook.md';


test('promtool check rules accepts the chart\'s rule file', { skip }, async () => {
  const { stdout } = await run(promtool ?? 'promtool', ['check', 'rules', PROMETHEUS_RULES]);
  assert.match(stdout, /SUCCESS: \d+ rules found/);
});

test('promtool test rules: every alert fires on its series and stays silent on the others', { skip }, async () => {
  const result = await run(promtool ?? 'promtool', ['test', 'rules', RULE_TESTS]).catch((err: { stdout?: string; stderr?: string }) => err);
  assert.match(result.stdout ?? '', /SUCCESS/, `${result.stdout ?? ''}${result.stderr ?? ''}`);
});

test('every alert of the rule file has a promtool test that sees it fire', async () => {
  const tests = await readFile(RULE_TESTS, 'utf8');
  const fired = new Set<string>();
  // An alertname followed by a non-empty exp_alerts list is a firing case.
  for (const m of tests.matchAll(/alertname: (\w+)\n\s+exp_alerts:\n/g)) fired.add(m[1]);
  const silent = new Set([...tests.matchAll(/alertname: (\w+)\n\s+exp_alerts: \[\]/g)].map((m) => m[1]));
  for (const name of await alertNames()) {
    assert.ok(fired.has(name), `${name} is never seen firing in rules.test.yaml`);
    assert.ok(silent.has(name), `${name} is never seen silent in rules.test.yaml`);
  }
});

test('every alert has a runbook_url whose section exists in docs/runbook.md', async () => {
  const anchors = headingAnchors(await readFile(join(REPO_ROOT, RUNBOOK), 'utf8'));
  const runbooks = await alertRunbooks();
  assert.ok(runbooks.length > 0);
  for (const { alert, runbookUrl } of runbooks) {
    assert.ok(runbookUrl, `${alert} has no runbook_url`);
    const [file, anchor] = runbookUrl.split('#');
    assert.equal(file, RUNBOOK, `${alert}: runbook_url ${runbookUrl} is not in ${RUNBOOK}`);
    assert.ok(anchor && anchors.has(anchor), `${alert}: ${RUNBOOK} has no section #${anchor ?? ''}`);
  }
});

test('headingAnchors makes GitHub\'s anchors: lower case, punctuation dropped, spaces to dashes', () => {
  assert.deepEqual([...headingAnchors('# Runbook\n## PVControllerDown\n### What to do, now!\nnot # a heading\n')], ['runbook', 'pvcontrollerdown', 'what-to-do-now']);
});

test('no alert duplicates kubernetes-mixin\'s volume fullness alerts', async () => {
  const names = await alertNames();
  for (const dropped of ['PVControllerVolumeAlmostFull', 'PVControllerVolumeFillingUp']) assert.ok(!names.includes(dropped), dropped);
  assert.ok(names.includes('PVControllerDown'));
});
