/**
 * Where the compiled tests are and what the two runners (scripts/run-tests.mjs for `npm test`,
 * tools/cluster/test-run.ts for `npm run test:cluster`) call them: the product's under dist/test
 * (`integration/binding.test.js`), each workspace package's under dist/packages/<name>/test
 * (`apiserver/registry.test.js`). Filters and the cluster suite list match these names.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

function walk(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

/** Every compiled test file under `distDir`, sorted. */
export function findTestFiles(distDir: string): string[] {
  const dirs = [join(distDir, 'test')];
  const packages = join(distDir, 'packages');
  if (existsSync(packages)) for (const name of readdirSync(packages)) dirs.push(join(packages, name, 'test'));
  return dirs.filter((d) => existsSync(d)).flatMap((d) => walk(d, [])).sort();
}

/** `cli/flags.test.js` for the product's tests, `apiserver/registry.test.js` for a package's. */
export function testName(distDir: string, file: string): string {
  return relative(distDir, file).replace(/^test\//, '').replace(/^packages\/([^/]+)\/test\//, '$1/');
}
