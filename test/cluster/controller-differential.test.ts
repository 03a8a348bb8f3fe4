/**
 * The controller, differentially: the binder/reclaim decision-table scenarios run once with
 * kube-controller-manager's PV controllers (and its host-path provisioner) and once with ours,
 * each on a fresh control plane, and the converged volumes, claims and events are compared field
 * by field. Writes the "Controller differential" section of docs/fidelity.md; fails on a
 * difference that is not listed with its reason in controller-diff/known.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { startController } from '../../src/controller/controller.js';
import { defaultModules } from '../../src/controller/modules.js';
import { HostPathPlugin } from '../../src/plugins/host-path/index.js';
import { PluginRegistry } from '../../src/plugins/registry.js';
import { testControllerOptions } from '../helpers/cluster.js';
import { realControlPlaneSkip } from '../helpers/control-plane.js';
import { explainedBy, KNOWN_CONTROLLER_DIFFERENCES } from './controller-diff/known.js';
import { writeControllerSection } from './controller-diff/report.js';
import { runSide, type StartControllers } from './controller-diff/run.js';
import { SCENARIOS } from './controller-diff/scenarios.js';
import { stateDifferences, unusedTimesOutOfOrder, type StateDifference } from './controller-diff/snapshot.js';

const startKcm: StartControllers = async (plane) => {
  const kcm = await plane.startControllerManager({ hostPathProvisioner: true, syncPeriod: '2s' });
  return () => kcm.stop();
};

const startOurs: StartControllers = async (plane, root) => {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(plane.controllerKubeconfigPath ?? plane.kubeconfigPath);
  const controller = await startController(testControllerOptions(plane.controllerKubeconfigPath ?? plane.kubeconfigPath, root), {
    plugins: new PluginRegistry([new HostPathPlugin({ roots: [root] })]),
    // A host-path create announces itself (`Provisioning`) only when it runs past 1 s, which only
    // the machine's load decides; the in-tree provisioner never does. Not a behaviour to compare.
    modules: defaultModules({ provisioner: { provisioningEventAfterMs: 600_000 } }),
    kubeConfig,
    logger: pino({ level: process.env.PV_TEST_LOG ?? 'silent' }),
  });
  return () => controller.stop();
};

test('every binder/reclaim scenario converges as with kube-controller-manager, or the difference is listed with its reason', { skip: realControlPlaneSkip(), timeout: 900_000 }, async () => {
  // Never both at once: kube-controller-manager's run ends (and its plane stops) before ours starts.
  const kcm = await runSide('kcm', SCENARIOS, startKcm);
  const ours = await runSide('ours', SCENARIOS, startOurs);
  // Scenarios that ask for it are compared before their steps too (paths prefixed "before steps: ").
  const diffsOf = (id: string, compareBefore: boolean | undefined): StateDifference[] => [
    ...(compareBefore ? stateDifferences(kcm.beforeSteps.get(id), ours.beforeSteps.get(id)).map((d) => ({ ...d, path: `before steps: ${d.path}` })) : []),
    ...stateDifferences(kcm.final.get(id), ours.final.get(id)),
  ];
  const results = SCENARIOS.map((sc) => ({ sc, diffs: diffsOf(sc.id, sc.compareBeforeSteps) }));
  await writeControllerSection(results);
  const unexplained = results.flatMap((r) => r.diffs.filter((d) => !explainedBy(r.sc.id, d)).map((d) => ({ scenario: r.sc.id, ...d })));
  const used = new Set(results.flatMap((r) => r.diffs.map((d) => explainedBy(r.sc.id, d)?.name)));
  // The Unused condition's times (normalised away above): present on both sides, never going back.
  const stepped = new Set(SCENARIOS.filter((sc) => sc.compareBeforeSteps).map((sc) => sc.id));
  const inStepped = (key: string): boolean => stepped.has(key.split('/')[0]);
  for (const [side, r] of [['kube-controller-manager', kcm], ['ours', ours]] as const) {
    assert.deepEqual(unusedTimesOutOfOrder(r.unusedTimes.beforeSteps, r.unusedTimes.final, inStepped), [], `${side}: Unused times out of order`);
    assert.deepEqual([...stepped].filter((id) => !r.unusedTimes.beforeSteps.has(`${id}/c`)), [], `${side}: claims without an Unused time before the steps`);
  }
  assert.deepEqual(unexplained, [], 'scenarios that converge otherwise than with kube-controller-manager');
  assert.deepEqual(KNOWN_CONTROLLER_DIFFERENCES.filter((k) => !used.has(k.name)).map((k) => k.name), [], 'listed differences no scenario shows any more');
});
