/**
 * Run by test/plugins/snapshot-mounts.test.ts inside a private mount namespace (never on its own):
 * enters the sandbox, runs every snapshot scenario in a directory of its own, prints the results
 * as JSON.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { enterSandbox } from '../../helpers/mount-sandbox.js';
import {
  mountInsideRestoredSnapshot,
  mountInsideSnapshot,
  mountInsideVolume,
  mountOnSnapshot,
  symlinkAsArea,
  symlinkAsSnapshot,
  type SnapshotScenarioResult,
} from './snapshot-scenarios.js';

const SCENARIOS: Record<string, (base: string) => Promise<SnapshotScenarioResult>> = {
  symlinkAsSnapshot,
  symlinkAsArea,
  mountInsideSnapshot,
  mountOnSnapshot,
  mountInsideVolume,
  mountInsideRestoredSnapshot,
};

const sandbox = enterSandbox();
const results: Record<string, SnapshotScenarioResult | { error: string }> = {};
for (const [name, scenario] of Object.entries(SCENARIOS)) {
  const base = join(sandbox, name);
  await fs.mkdir(base);
  results[name] = await scenario(base).catch((err: unknown) => ({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) }));
}
process.stdout.write(JSON.stringify(results));
