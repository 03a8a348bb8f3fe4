/**
 * The embedded server's start-up footprint: it reads client-node's generated models for its
 * typed decoder, never the package's index, whose ~60 API classes and HTTP stack cost the
 * server process ~37 MB of RSS that it does not use (the controller's process loads it).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

test('the API server modules load client-node\'s models only, not the package index', () => {
  const hook = `
    export async function resolve(specifier, context, next) {
      if (specifier === '@kubernetes/client-node') process.stderr.write('INDEX ' + context.parentURL + '\\n');
      return next(specifier, context);
    }`;
  const script = `
    import { register } from 'node:module';
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
    const server = await import(${JSON.stringify(import.meta.resolve('@pv-controller/apiserver/server.js'))});
    const schema = await import(${JSON.stringify(import.meta.resolve('@pv-controller/apiserver/decode/schema.js'))});
    if (typeof server.startApiServer !== 'function') throw new Error('no startApiServer');
    // A kind of a group this server does not serve is still known to the scheme.
    if (!schema.isRegisteredKind('rbac.authorization.k8s.io', 'v1', 'Role')) throw new Error('Role not registered');
    if (schema.isRegisteredKind('rbac.authorization.k8s.io', 'v1', 'NoSuchKind')) throw new Error('NoSuchKind registered');
    if (schema.modelForKind('', 'v1', 'PersistentVolume') === undefined) throw new Error('no model for PersistentVolume');
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /INDEX/, 'a module of the API server imports @kubernetes/client-node whole');
});
