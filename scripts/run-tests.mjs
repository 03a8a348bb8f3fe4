#!/usr/bin/env node
// Runs the compiled tests with node:test. Node 20's --test does not expand globs, so the files
// are found here: the product's (dist/test) and the workspace packages' (dist/packages/<name>/test,
// named `<name>/...` below). `node scripts/run-tests.mjs [unit|integration|e2e|<path-substring>...]`.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const distDir = join(root, 'dist');
const testDirs = [join(distDir, 'test')];
const packagesDir = join(distDir, 'packages');
try {
  for (const name of readdirSync(packagesDir)) if (existsSync(join(packagesDir, name, 'test'))) testDirs.push(join(packagesDir, name, 'test'));
} catch {
  // no package has tests built
}

/** `cli/flags.test.js` for the product's tests, `apiserver/registry.test.js` for a package's. */
function shortName(file) {
  return relative(distDir, file).replace(/^test\//, '').replace(/^packages\/([^/]+)\/test\//, '$1/');
}

function walk(dir) {
  let out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(walk(p));
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const filters = process.argv.slice(2);
// test/cluster/ needs the real control plane: `npm run test:cluster` runs it.
let files = testDirs
  .flatMap((d) => walk(d))
  .filter((f) => !shortName(f).startsWith('cluster/'))
  .sort();
if (filters.length > 0) {
  files = files.filter((f) => {
    const rel = shortName(f);
    return filters.some((flt) => {
      if (flt === 'unit') return !/(^|\/)(integration|e2e)\//.test(rel);
      return rel.includes(flt);
    });
  });
}
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Integration tests start servers and processes; two at a time suits a 2-core machine.
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const args = ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files];
const child = spawn(process.execPath, args, { stdio: 'inherit', cwd: root });
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
