/**
 * packages/apiserver/src/openapi/definitions.json is what tools/k8s/cmd/openapi-schema prints for the
 * Kubernetes release in tools/k8s/go.mod: regenerating it changes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { K8S_MODULE_DIR, onPath, REPO_ROOT } from '../../tools/cluster/binaries.js';

const COMMITTED = join(REPO_ROOT, 'packages', 'apiserver', 'src', 'openapi', 'definitions.json');
const skip = onPath('go') ? false : 'Go is not installed: the OpenAPI definitions cannot be regenerated here';

test('the committed OpenAPI definitions are what `npm run openapi:generate` writes (regenerate them when this fails)', { skip, timeout: 1_800_000 }, async () => {
  const { stdout } = await promisify(execFile)('go', ['run', './cmd/openapi-schema'], { cwd: K8S_MODULE_DIR, maxBuffer: 64 * 1024 * 1024 });
  const committed = readFileSync(COMMITTED, 'utf8');
  assert.ok(stdout === committed, `packages/apiserver/src/openapi/definitions.json is stale: run \`npm run openapi:generate\` (${stdout.length} bytes generated, ${committed.length} committed)`);
});
