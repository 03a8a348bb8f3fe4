/**
 * Differential fidelity: the corpus of test/cluster/fidelity/ replayed against a fresh embedded
 * server and a fresh kube-apiserver, compared field by field. Prints the match table by area,
 * writes docs/fidelity.md, and fails only on mismatches the list of known differences does not
 * explain.
 *
 * Both servers keep a short history so that "watch from a resourceVersion whose history is gone"
 * can be asked of both within the run: kube-apiserver compacts etcd every few seconds (its own
 * etcd, so no other suite's history is compacted), ours retains few changes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { binaryPath, REPO_ROOT } from '../../tools/cluster/binaries.js';
import { controlPlaneVersion } from '../../tools/cluster/control-plane.js';
import { startEmbeddedTestApiServer } from '../helpers/apiserver.js';
import { realControlPlaneSkip, startTestControlPlane } from '../helpers/control-plane.js';
import { KubeConfig } from '@kubernetes/client-node';
import { installSnapshotCrds } from '../helpers/snapshot-crds.js';
import { summarise } from './fidelity/compare.js';
import { caseNamespace } from './fidelity/replay.js';
import { corpus } from './fidelity/corpus.js';
import { withControllerSection } from './controller-diff/report.js';
import type { Target } from './fidelity/http.js';
import { KNOWN_DIFFERENCES } from './fidelity/known-differences.js';
import { consoleTable, markdownReport } from './fidelity/report.js';
import { replayCorpus } from './fidelity/run.js';
import { judge, residual } from './fidelity/verdict.js';

const skip = realControlPlaneSkip();
const COMPACTION_INTERVAL = '3s';
const OUR_RETAINED_CHANGES = 100;
/** Every case's normalised answers from both servers, for looking into a difference. */
const OUTCOMES_PATH = join(REPO_ROOT, 'dist', 'fidelity-outcomes.json');

test('the fidelity corpus has at least 150 cases with unique ids, and every known difference names one of them', () => {
  const ids = corpus.map((c) => c.id);
  assert.ok(ids.length >= 150, `only ${ids.length} cases`);
  assert.deepEqual(ids.filter((id, i) => ids.indexOf(id) !== i), [], 'duplicate case ids');
  for (const id of ids) assert.match(caseNamespace(id), /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, `case id ${id} makes no namespace name`);
  assert.deepEqual(Object.keys(KNOWN_DIFFERENCES.cases).filter((id) => !ids.includes(id)), [], 'known differences naming no case');
});

test('the embedded server answers the fidelity corpus as kube-apiserver does, apart from the known differences', { skip, timeout: 300_000 }, async () => {
  const started = Date.now();
  const [real, ours] = await Promise.all([
    startTestControlPlane({ controllerServiceAccount: false, etcdUrl: undefined, apiServerArgs: [`--etcd-compaction-interval=${COMPACTION_INTERVAL}`] }),
    // The real side runs kube-apiserver alone, so ours runs without its namespace controller and garbage collector.
    startEmbeddedTestApiServer({ retainChanges: OUR_RETAINED_CHANGES, namespaceController: false, garbageCollector: false }),
  ]);
  try {
    // The snapshot kinds are custom resources there, as on any cluster with external-snapshotter.
    const realKc = new KubeConfig();
    realKc.loadFromFile(real.kubeconfigPath);
    await installSnapshotCrds(realKc);
    const kubectl = binaryPath('kubectl');
    const realTarget: Target = { name: 'real', url: real.url, token: real.adminToken, caPem: real.caPem, kubeconfigPath: real.kubeconfigPath, kubectl };
    const ourTarget: Target = { name: 'ours', url: ours.server.url, token: ours.server.token, caPem: ours.server.caPem, kubeconfigPath: ours.server.kubeconfigPath, kubectl };
    // PV_FIDELITY_CASES=<regular expression> replays only the cases whose id it matches (while working on them; no report is written).
    const only = process.env.PV_FIDELITY_CASES;
    const cases = only ? corpus.filter((c) => new RegExp(only).test(c.id)) : corpus;
    const results = await replayCorpus(cases, realTarget, ourTarget);
    const verdict = judge(results, KNOWN_DIFFERENCES);
    const doc = join(REPO_ROOT, 'docs', 'fidelity.md');
    // The controller differential writes its own section of the same file: it stays.
    const previous = await readFile(doc, 'utf8').catch(() => '');
    if (!only) await writeFile(doc, withControllerSection(markdownReport(results, KNOWN_DIFFERENCES, controlPlaneVersion()), previous));
    await writeFile(OUTCOMES_PATH, JSON.stringify(results.map((r) => ({ id: r.c.id, diffs: r.diffs, real: r.real, ours: r.ours })), null, 1));
    const lines = [
      `fidelity: ${results.length} cases in ${Math.round((Date.now() - started) / 1000)} s; both servers' answers in ${OUTCOMES_PATH}`,
      consoleTable(results, KNOWN_DIFFERENCES),
      ...verdict.nowMatching.map((id) => `fidelity: listed as a known difference but matches now: ${id}`),
      ...verdict.fieldGapsGone.map((reason) => `fidelity: field-wide gap no case shows any more: ${reason}`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    const regressions = verdict.regressions.map((r) => `  ${r.c.id}: ${summarise(residual(r, KNOWN_DIFFERENCES.fields), r.real, r.ours)}`);
    assert.equal(regressions.length, 0, `cases that differ from kube-apiserver and are not known differences:\n${regressions.join('\n')}`);
  } finally {
    await Promise.all([real.stop().finally(() => real.removeDir()), ours.stop()]);
  }
});
