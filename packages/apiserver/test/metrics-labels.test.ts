/**
 * /metrics' labels come from closed sets: a value a client chooses (a dryRun parameter, a health
 * path naming no check) never becomes a label value, so no client can grow the exposition.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmbeddedTestApiServer, type EmbeddedTestApiServer } from '../../../test/helpers/apiserver.js';
import { api } from './http-client.js';

let t: EmbeddedTestApiServer;
before(async () => {
  t = await startEmbeddedTestApiServer();
});
after(async () => {
  await t.stop();
});

/** The series /metrics exports (sample lines), without their values. */
async function series(): Promise<Set<string>> {
  const r = await api(t.server, 'GET', '/metrics');
  assert.equal(r.status, 200);
  const names = r.text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).map((l) => l.slice(0, l.lastIndexOf(' ')));
  return new Set(names);
}

test('2,000 GETs with distinct dryRun values add no series to /metrics after the first', async () => {
  const path = '/api/v1/namespaces/default';
  await api(t.server, 'GET', `${path}?dryRun=first`);
  await api(t.server, 'GET', `${path}?dryRun=All`);
  await api(t.server, 'GET', path);
  await series(); // the scrape itself is counted from the second on
  const before = await series();
  const long = 'x'.repeat(14 * 1024);
  for (let i = 0; i < 2000; i++) {
    const r = await api(t.server, 'GET', `${path}?dryRun=${i % 100 === 0 ? long : ''}v${i}&dryRun=All`);
    assert.equal(r.status, 200);
  }
  const afterwards = await series();
  const added = [...afterwards].filter((s) => !before.has(s));
  assert.deepEqual(added.slice(0, 3).map((s) => s.slice(0, 160)), [], `${added.length} series added`);
  const getLabels = [...afterwards].filter((s) => s.startsWith('apiserver_request_total{verb="GET"') && s.includes('resource="namespaces"'));
  assert.deepEqual(getLabels.map((s) => /dry_run="([^"]*)"/.exec(s)?.[1]).sort(), ['', 'All', 'invalid']);
});

test('health paths that name no check are not labelled by their path', async () => {
  const before = await series();
  for (let i = 0; i < 50; i++) assert.equal((await api(t.server, 'GET', `/livez/no-such-check-${i}`)).status, 404);
  assert.equal((await api(t.server, 'GET', '/livez/ping')).status, 200);
  const added = [...(await series())].filter((s) => !before.has(s));
  assert.ok(added.every((s) => s.includes('subresource="/livez/ping"')), added.join('\n'));
});
