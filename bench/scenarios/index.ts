/** Every scenario, in the order `npm run bench` runs them. */
import type { Scenario } from '../scenario.js';
import { apiserverScenario } from './apiserver.js';
import { apiserverMemoryScenario } from './apiserver-memory.js';
import { bindScenario } from './bind.js';
import { matchingScenario } from './matching.js';
import { provisionScenario } from './provision.js';
import { usageCollectionScenario } from './usage-collection.js';

export const SCENARIOS: readonly Scenario[] = [
  apiserverScenario,
  apiserverMemoryScenario,
  matchingScenario,
  bindScenario,
  provisionScenario,
  usageCollectionScenario,
];

/** Resolves `--scenario` names and aliases; throws on an unknown name. */
export function selectScenarios(names: readonly string[]): Scenario[] {
  if (names.length === 0) return [...SCENARIOS];
  const chosen = new Set<Scenario>();
  for (const name of names) {
    const scenario = SCENARIOS.find((s) => s.name === name || s.aliases.includes(name));
    if (!scenario) {
      throw new Error(`unknown scenario "${name}"; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
    }
    chosen.add(scenario);
  }
  return SCENARIOS.filter((s) => chosen.has(s));
}
