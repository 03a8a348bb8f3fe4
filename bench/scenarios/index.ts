/** Every scenario, in the order `npm run bench` runs them. */
import type { Scenario } from '../scenario.js';
import { apiserverScenario } from './apiserver.js';
import { apiserverMemoryScenario } from './apiserver-memory.js';
import { bindScenario } from './bind.js';
import { csiExpandScenario } from './csi-expand.js';
import { csiLeakScenario } from './csi-leak.js';
import { csiSpeedScenario } from './csi-speed.js';
import { localPathScenario } from './local-path.js';
import { matchingScenario } from './matching.js';
import { provisionScenario } from './provision.js';
import { realApiServerScenario, realMemoryScenario } from './real-apiserver.js';
import { realBindScenario } from './real-bind.js';
import { realProvisionScenario } from './real-provision.js';
import { usageCollectionScenario } from './usage-collection.js';
import { sizedVolumesScenario } from './sized-volumes.js';
import { snapshotScenario } from './snapshot.js';

/** The default set; `--real-cluster` runs REAL_CLUSTER_SCENARIOS instead. */
export const SCENARIOS: readonly Scenario[] = [
  apiserverScenario,
  apiserverMemoryScenario,
  matchingScenario,
  bindScenario,
  provisionScenario,
  usageCollectionScenario,
  sizedVolumesScenario,
  snapshotScenario,
];

/** Side by side with kube-controller-manager on kube-apiserver + etcd (`--real-cluster`). */
export const REAL_CLUSTER_SCENARIOS: readonly Scenario[] = [realBindScenario, realProvisionScenario, realApiServerScenario, realMemoryScenario];

/**
 * Run only when named (`--scenario csi-leak`): the CSI side by side starts its own control plane
 * and peers; local-path its own control plane and a real kubelet node.
 */
export const ON_REQUEST_SCENARIOS: readonly Scenario[] = [csiLeakScenario, csiSpeedScenario, csiExpandScenario, localPathScenario];

export function scenarioSet(realCluster: boolean): readonly Scenario[] {
  return realCluster ? REAL_CLUSTER_SCENARIOS : SCENARIOS;
}

/** Resolves `--scenario` names and aliases within a set; throws on an unknown name. */
export function selectScenarios(names: readonly string[], set: readonly Scenario[] = SCENARIOS): Scenario[] {
  if (names.length === 0) return [...set];
  const pool = [...set, ...ON_REQUEST_SCENARIOS];
  const chosen = new Set<Scenario>();
  for (const name of names) {
    const scenario = pool.find((s) => s.name === name || s.aliases.includes(name));
    if (!scenario) {
      throw new Error(`unknown scenario "${name}"; known: ${pool.map((s) => s.name).join(', ')}`);
    }
    chosen.add(scenario);
  }
  return pool.filter((s) => chosen.has(s));
}
