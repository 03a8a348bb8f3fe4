/**
 * Snapshots, restore and clones, differentially: the scenarios of snapshot-diff/scenarios.ts run
 * on the real control plane with Kubernetes' CSI mock driver, once with the upstream set
 * (external-snapshotter's snapshot-controller and csi-snapshotter, external-provisioner,
 * kube-controller-manager's binder) and once with pv-controller (never both at once); every
 * VolumeSnapshot, content, claim, volume, event and driver snapshot each converged to is compared.
 * Prints the side-by-side table and writes docs/snapshot-differential.md; fails on a difference
 * not listed with its reason in snapshot-diff/known.ts.
 *
 * The upstream side runs wherever the binaries are built (`npm run cluster:build`, `npm run
 * csi:build`); pv-controller's side skips, saying why, until `pv-controller controller --help`
 * lists the snapshot controller in `--controllers` — then it runs by itself, nothing to switch on.
 * Run it alone with `npm run test:cluster -- snapshot-differential`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { snapshotPeersUnavailable } from '../../bench/csi/snapshot-world.js';
import { realControlPlaneSkip } from '../helpers/control-plane.js';
import { viewDifferences } from './snapshot-diff/compare.js';
import { explainedBy, KNOWN_SNAPSHOT_DIFFERENCES } from './snapshot-diff/known.js';
import { snapshotReport, writeSnapshotReport, type ScenarioResult } from './snapshot-diff/report.js';
import { runSnapshotSide } from './snapshot-diff/run.js';
import { SNAPSHOT_SCENARIOS, type ScenarioView } from './snapshot-diff/scenarios.js';

const COMMAND = 'npm run test:cluster -- snapshot-differential';
const upstreamSkip = realControlPlaneSkip() || snapshotPeersUnavailable('upstream') || false;
const oursMissing = snapshotPeersUnavailable('pv-controller');
const oursSkip = upstreamSkip || oursMissing || false;
const log = (line: string): void => {
  if (process.env.PV_TEST_LOG) process.stderr.write(`${line}\n`);
};

let upstream: Map<string, ScenarioView[]> | undefined;

function results(ours: Map<string, ScenarioView[]> | undefined): ScenarioResult[] {
  return SNAPSHOT_SCENARIOS.map((sc) => {
    const up = upstream?.get(sc.id);
    const mine = ours?.get(sc.id);
    return { sc, upstream: up, ours: mine, diffs: ours ? viewDifferences(up, mine) : [] };
  });
}

async function report(ours: Map<string, ScenarioView[]> | undefined, missing: string | undefined): Promise<void> {
  const text = snapshotReport(results(ours), missing, COMMAND);
  process.stdout.write(`${text}\n`);
  await writeSnapshotReport(text);
}

test('upstream: every snapshot scenario reaches the outcome external-snapshotter and external-provisioner give it', { skip: upstreamSkip, timeout: 20 * 60_000 }, async () => {
  upstream = await runSnapshotSide('upstream', SNAPSHOT_SCENARIOS, log);
  // Written now, with ours marked as not run: replaced by the full table when ours runs below.
  await report(undefined, oursMissing ?? 'its run follows');
  const wrong = SNAPSHOT_SCENARIOS.flatMap((sc) => {
    const views = upstream?.get(sc.id);
    const why = views && views.length === sc.stages.length ? sc.expect(views) : 'not recorded after each stage';
    return why ? [`${sc.id}: expected ${why}`] : [];
  });
  assert.deepEqual(wrong, [], 'upstream scenarios that did not reach their outcome (the harness or the peers are wrong)');
});

test('pv-controller: every snapshot scenario converges as upstream, or the difference is listed with its reason', { skip: oursSkip, timeout: 20 * 60_000 }, async () => {
  assert.ok(upstream, 'the upstream side ran first');
  const ours = await runSnapshotSide('pv-controller', SNAPSHOT_SCENARIOS, log);
  await report(ours, undefined);
  const all = results(ours);
  const unexplained = all.flatMap((r) => r.diffs.filter((d) => !explainedBy(r.sc.id, d)).map((d) => ({ scenario: r.sc.id, ...d })));
  const used = new Set(all.flatMap((r) => r.diffs.map((d) => explainedBy(r.sc.id, d)?.name)));
  assert.deepEqual(unexplained, [], 'scenarios that converge otherwise than upstream');
  assert.deepEqual(KNOWN_SNAPSHOT_DIFFERENCES.filter((k) => !used.has(k.name)).map((k) => k.name), [], 'listed differences no scenario shows any more');
});
