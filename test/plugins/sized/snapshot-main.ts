/**
 * Run by test/plugins/sized-snapshots.test.ts inside a private mount namespace (never on its
 * own): the sized snapshot scenarios, and the conformance snapshot sub-suite against sized
 * host-path volumes, each in a directory of its own; prints the results as JSON.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { HostPathPlugin, volumePath } from '../../../src/plugins/host-path/index.js';
import { enterSandbox } from '../../helpers/mount-sandbox.js';
import { SNAPSHOT_SUITE } from '../conformance/snapshot.js';
import type { SubjectFactory } from '../conformance/subject.js';
import { copyRoot, loopDevicesBelow, reflinkRoot, unmountBelow } from './snapshot-scenarios.js';

const sandbox = enterSandbox();
const results: Record<string, unknown> = {};
for (const [name, scenario] of Object.entries({ copyRoot, reflinkRoot })) {
  const base = join(sandbox, name);
  await fs.mkdir(base);
  results[name] = await scenario(base).catch((err: unknown) => ({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) }));
}

let subjects = 0;
const sizedSubject: SubjectFactory = async () => {
  const base = join(sandbox, `conformance-${subjects++}`);
  await fs.mkdir(base);
  return {
    plugin: new HostPathPlugin({ roots: [base], overcommitRatio: 1000 }),
    parameters: { sizing: 'image' },
    backingExists: async (name) => fs.lstat(join(base, name)).then(() => true, () => false),
    writeFile: (pv, name, content) => fs.writeFile(join(volumePath(pv)!, name), content),
    readFile: (pv, name) => fs.readFile(join(volumePath(pv)!, name), 'utf8').catch(() => undefined),
    cleanup: async () => {
      unmountBelow(base);
      if (loopDevicesBelow(base).length > 0) throw new Error(`loop devices left attached below ${base}`);
      await fs.rm(base, { recursive: true, force: true });
    },
  };
};
const conformance: Record<string, string> = {};
for (const check of SNAPSHOT_SUITE) {
  conformance[check.name] = await check.run(sizedSubject).then(() => 'ok', (err: unknown) => (err instanceof Error ? (err.stack ?? err.message) : String(err)));
}
results.conformance = conformance;
process.stdout.write(JSON.stringify(results));
