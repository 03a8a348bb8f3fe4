/**
 * The short chaos run every `npm test` makes (tools/chaos, docs/chaos.md): a seeded workload of
 * about sixty claims while controllers are SIGKILLed, the embedded API server on SQLite is
 * SIGKILLed and restarted, API, cloud and CSI faults are injected (the fake CSI driver as a
 * process, behind the CSI proxy; a claim deleted mid-CreateVolume); then every invariant is checked
 * from the outside. Under `npm run test:cluster` the same run goes against a real kube-apiserver
 * (no API server kills there) with the controller's own ServiceAccount behind the proxy.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runChaos } from '../../tools/chaos/run.js';
import { summaryLines } from '../../tools/chaos/report.js';
import { onRealControlPlane, startRealTestApiServer } from '../helpers/control-plane.js';

const SEED = 20261201;

test('a short seeded chaos run (controller and API server kills, API, cloud and CSI faults, a claim deleted mid-CreateVolume) breaks no invariant', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'pv-chaos-test-'));
  const real = onRealControlPlane() ? await startRealTestApiServer() : undefined;
  const lines: string[] = [];
  t.after(async () => {
    await real?.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const record = await runChaos({
    claims: 60,
    seed: SEED,
    ...(real ? { kubeconfig: real.server.kubeconfigPath, controllerKubeconfig: real.controllerKubeconfigPath } : {}),
    durationMs: 90_000,
    dir,
    workers: 3,
    opsPerSecond: 6,
    apiFaultRate: 0.08,
    // The fake driver as a process: always there (the mock needs Go), atomic per name.
    csiDriver: 'fake',
    settleTimeoutMs: 120_000,
    keep: false,
    log: (line) => lines.push(line),
  });
  const summary = summaryLines(record, `npm run chaos -- --claims 60 --seed ${SEED}`).join('\n');
  t.diagnostic(summary);
  assert.deepEqual(record.invariants.violations, [], summary);
  assert.equal(record.claimsCreated, 60, summary);
  assert.ok(record.settled, `the system did not settle\n${summary}`);
  assert.ok(record.controllerKills > 0 && Object.keys(record.apiFaults).length > 0, `the run injected no chaos\n${summary}`);
  // The CSI class was exercised: claims provisioned through the driver, and #486's shape suffered.
  assert.ok(record.csi && record.csi.createVolumeCalls > 0, `no CreateVolume reached the CSI driver\n${summary}`);
  assert.ok((record.csi.faults.claimDeletedMidCreate ?? 0) >= 1, `no claim was deleted mid-CreateVolume\n${summary}`);
  assert.ok(record.invariants.checked['csi-volumes'] > 0, `csi-volumes checked nothing\n${summary}`);
});
