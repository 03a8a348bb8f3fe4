/**
 * Run by test/plugins/mounts.test.ts inside a private mount namespace (never on its own): enters
 * the sandbox (mount-sandbox.ts), runs every scenario in a directory of its own and prints what
 * happened to each as JSON.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { enterSandbox } from '../../helpers/mount-sandbox.js';
import type { ScenarioResult } from './common.js';
import { bindNested, bindOnVolume, parentCrossesMount, rootIsMount, tmpfsOnVolume } from './plugin-scenarios.js';
import { reclaimFlowRefusesMount } from './reclaim-scenario.js';
import { ttlForgedAndMounted } from './ttl-scenario.js';
import { mountAfterOpen, walkRefusesMount } from './walk-scenario.js';

const SCENARIOS = {
  bindOnVolume,
  bindNested,
  tmpfsOnVolume,
  parentCrossesMount,
  rootIsMount,
  walkRefusesMount,
  mountAfterOpen,
  reclaimFlowRefusesMount,
  ttlForgedAndMounted,
} satisfies Record<string, (base: string) => Promise<ScenarioResult>>;

type ScenarioName = keyof typeof SCENARIOS;

const sandbox = enterSandbox();
const results: Partial<Record<ScenarioName, ScenarioResult>> = {};
for (const [name, scenario] of Object.entries(SCENARIOS) as Array<[ScenarioName, (base: string) => Promise<ScenarioResult>]>) {
  const base = join(sandbox, name);
  await fs.mkdir(base);
  results[name] = await scenario(base);
}
process.stdout.write(JSON.stringify(results));
