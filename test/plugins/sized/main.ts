/**
 * Run by test/plugins/sized-volumes.test.ts inside a private mount namespace (never on its own):
 * enters the sandbox, runs each sized-volume scenario in a directory of its own, prints the
 * results as JSON.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { enterSandbox } from '../../helpers/mount-sandbox.js';
import { capacityAccounting, holdsItsSizeAndGrows, remountAfterReboot, restartBetweenAttachAndPv, type SizedResult } from './scenarios.js';

const SCENARIOS: Record<string, (base: string) => Promise<SizedResult>> = { holdsItsSizeAndGrows, capacityAccounting, restartBetweenAttachAndPv, remountAfterReboot };

const sandbox = enterSandbox();
const results: Record<string, SizedResult | { error: string }> = {};
for (const [name, scenario] of Object.entries(SCENARIOS)) {
  const base = join(sandbox, name);
  await fs.mkdir(base);
  results[name] = await scenario(base).catch((err: unknown) => ({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) }));
}
process.stdout.write(JSON.stringify(results));
