#!/usr/bin/env node
// Runs the compiled tests with node:test. Node 20's --test does not expand globs, so the files
// are found here: the product's (dist/test) and the workspace packages' (dist/packages/<name>/test,
// named `<name>/...` below). `node scripts/run-tests.mjs [unit|integration|e2e|<path-substring>...]`.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;
const distDir = join(root, 'dist');
// The finding and naming the cluster runner shares (tools/testing/test-files.ts, built with the rest).
const { findTestFiles, testName } = await import(pathToFileURL(join(distDir, 'tools', 'testing', 'test-files.js')).href);
const shortName = (file) => testName(distDir, file);

const filters = process.argv.slice(2);
// test/cluster/ needs the real control plane: `npm run test:cluster` runs it.
let files = findTestFiles(distDir).filter((f) => !shortName(f).startsWith('cluster/'));
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
// The AWS SDK warns once per process that its releases after January 2027 need Node.js 22; on this
// machine's Node 20 every test process that loads the EBS plugin printed it (11 times a run). The
// SDK's own switch turns off that warning only; the product keeps it (docs/install.md, Node.js).
const env = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ?? 'true' };
const child = spawn(process.execPath, args, { stdio: 'inherit', cwd: root, env });
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
