/**
 * Every input in test/fuzz/corpus/<target>/ (the seeds, and each input `npm run fuzz` saved
 * because it broke a law, threw or hung) replayed through its fuzz target: a finding stays a
 * failing test here until it is fixed, and stays a regression test afterwards.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as bodyTargets from './targets/body-targets.js';
import { FUZZ_TARGETS } from './targets/index.js';
import * as textTargets from './targets/text-targets.js';

const CORPUS = new URL('../../../test/fuzz/corpus', import.meta.url).pathname;
const MODULES: Record<string, Record<string, unknown>> = { 'text-targets.js': textTargets, 'body-targets.js': bodyTargets };

for (const [target, module] of Object.entries(FUZZ_TARGETS)) {
  test(`every saved ${target} input keeps its parser's laws`, () => {
    const fuzz = MODULES[module][target] as (data: Buffer) => void;
    assert.equal(typeof fuzz, 'function', `${module} exports ${target}`);
    const inputs = readdirSync(join(CORPUS, target)).sort();
    assert.ok(inputs.length > 0, `test/fuzz/corpus/${target} has seeds`);
    for (const input of inputs) {
      assert.doesNotThrow(() => fuzz(readFileSync(join(CORPUS, target, input))), `test/fuzz/corpus/${target}/${input}`);
    }
  });
}
