/**
 * Scenario 4: provision N claims through the host-path plugin and reclaim (Delete) them: ops/s
 * for each direction. Wired once the controller command and the host-path plugin have landed.
 */
import { existsSync } from 'node:fs';
import { compiled } from '../paths.js';
import { embeddedServerUnavailable, missingCommand } from '../proc/servers.js';
import { skippedRow, type BenchOptions, type Scenario, type ScenarioResult } from '../scenario.js';

const NAME = 'provision';

async function unavailable(opts: BenchOptions): Promise<string | undefined> {
  return (
    (await embeddedServerUnavailable(opts)) ??
    missingCommand('controller') ??
    (existsSync(compiled('src/plugins/host-path/index.js')) ? undefined : 'the host-path plugin has not landed')
  );
}

async function run(opts: BenchOptions): Promise<ScenarioResult> {
  const why = (await unavailable(opts)) ?? 'not wired yet';
  return {
    rows: [skippedRow(NAME, 'provision host-path', why), skippedRow(NAME, 'delete host-path', why)],
    details: { skipped: why },
  };
}

export const provisionScenario: Scenario = {
  name: NAME,
  aliases: ['reclaim', '4'],
  description: 'provision N host-path volumes for N claims, then reclaim (Delete) them: ops/s each',
  run,
};
