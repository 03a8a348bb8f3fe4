/**
 * The chaos suite's own pieces that decide a verdict: which faults a request can suffer and the
 * Status each gets (kube-apiserver's shapes), and the acknowledged-writes check over a history.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HistoryEntry } from '../../tools/chaos/history.js';
import { lostWrites } from '../../tools/chaos/history.js';
import { applicableFaults, faultAnswer, resourceOfPath, type ProxiedRequest } from '../../tools/chaos/proxy-faults.js';

function request(method: string, path: string, query = ''): ProxiedRequest {
  const q = new URLSearchParams(query);
  return { method, path, query: q, watch: q.get('watch') === 'true' };
}

test('a GET never gets a 409 and a watch only stream faults; 410 Expired only for a watch from a resourceVersion', () => {
  assert.ok(!applicableFaults(request('GET', '/api/v1/persistentvolumes')).includes('conflict'));
  assert.ok(applicableFaults(request('PUT', '/api/v1/persistentvolumes/pv-1')).includes('conflict'));
  assert.ok(!applicableFaults(request('POST', '/api/v1/persistentvolumes')).includes('conflict'), 'a create is never told it conflicts');
  assert.ok(!applicableFaults(request('GET', '/api/v1/persistentvolumes', 'watch=true')).includes('watchExpired'));
  assert.ok(applicableFaults(request('GET', '/api/v1/persistentvolumes', 'watch=true&resourceVersion=12')).includes('watchExpired'));
  assert.ok(!applicableFaults(request('GET', '/api/v1/persistentvolumes', 'watch=true&resourceVersion=12')).includes('timeout'));
});

test('the injected 409 names the resource as kube-apiserver does, the 429 carries Retry-After, the 410 is a watch ERROR event', () => {
  assert.deepEqual(resourceOfPath('/apis/storage.k8s.io/v1/storageclasses/fast'), { group: 'storage.k8s.io', kind: 'storageclasses', name: 'fast' });
  const conflict = faultAnswer('conflict', request('PUT', '/api/v1/namespaces/default/persistentvolumeclaims/data'));
  assert.equal(conflict.status, 409);
  assert.deepEqual(JSON.parse(conflict.body), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Operation cannot be fulfilled on persistentvolumeclaims "data": the object has been modified; please apply your changes to the latest version and try again',
    reason: 'Conflict',
    details: { name: 'data', kind: 'persistentvolumeclaims' },
    code: 409,
  });
  const throttled = faultAnswer('throttle', request('GET', '/api/v1/persistentvolumes'));
  assert.equal(throttled.headers['retry-after'], '1');
  assert.deepEqual(JSON.parse(throttled.body).details, { retryAfterSeconds: 1 });
  const expired = JSON.parse(faultAnswer('watchExpired', request('GET', '/api/v1/persistentvolumes', 'watch=true&resourceVersion=12')).body);
  assert.equal(expired.type, 'ERROR');
  assert.equal(expired.object.code, 410);
  assert.equal(expired.object.reason, 'Expired');
});

function entry(fields: Partial<HistoryEntry> & Pick<HistoryEntry, 'op' | 'method' | 'object' | 'outcome'>): HistoryEntry {
  return { at: 0, ...fields };
}

test('acknowledged writes: a kept claim must exist with its uid, a deleted one need not, a ledger must hold its highest acknowledged value', () => {
  const claim = '/api/v1/namespaces/default/persistentvolumeclaims/c1';
  const gone = '/api/v1/namespaces/default/persistentvolumeclaims/c2';
  const ledger = '/apis/coordination.k8s.io/v1/namespaces/default/leases/chaos-ledger-0';
  const history = [
    entry({ op: 'claim', method: 'POST', object: claim, outcome: 'ok', uid: 'u1' }),
    entry({ op: 'claim', method: 'POST', object: gone, outcome: 'ok', uid: 'u2' }),
    entry({ op: 'claim', method: 'DELETE', object: gone, outcome: 'unknown' }),
    entry({ op: 'ledger', method: 'PUT', object: ledger, outcome: 'ok', value: 3 }),
    entry({ op: 'ledger', method: 'PUT', object: ledger, outcome: 'unknown', value: 4 }),
  ];
  assert.deepEqual(lostWrites(history, new Map([[claim, { uid: 'u1' }], [ledger, { value: 4 }]])), []);
  assert.equal(lostWrites(history, new Map([[claim, { uid: 'other' }], [ledger, { value: 3 }]])).length, 1, 'a re-created claim is not the acknowledged one');
  assert.equal(lostWrites(history, new Map([[claim, { uid: 'u1' }], [ledger, { value: 2 }]])).length, 1, 'a ledger went back');
  assert.equal(lostWrites(history, new Map([[claim, { uid: 'u1' }], [ledger, { value: 9 }]])).length, 1, 'a ledger holds a value never written');
});

test('the workload creates exactly its target of claims, however its workers interleave', async () => {
  const { Workload } = await import('../../tools/chaos/workload.js');
  const { Prng } = await import('../../tools/chaos/prng.js');
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const root = await mkdtemp(join(tmpdir(), 'chaos-workload-'));
  try {
    for (let seed = 1; seed <= 8; seed++) {
      let claimPosts = 0;
      // A static pair's PV and a recreate's delete answer slowly, a claim at once: the pair or the
      // recreate is still under way when another worker creates what looks like the last claim.
      const client = {
        async send(op: string, method: string) {
          const slow = (op.startsWith('pv') && method === 'POST') || method === 'DELETE';
          await new Promise((resolve) => setTimeout(resolve, slow ? 20 : 0));
          if (op === 'claim' && method === 'POST') claimPosts++;
          return { outcome: 'ok' as const, body: { metadata: { uid: `u-${claimPosts}` } } };
        },
        async get() {
          return undefined;
        },
      };
      const workload = new Workload(client as never, root, [], 25);
      await workload.run(new Prng(seed), 4, 4000, () => false);
      assert.equal(workload.claimsCreated, 25, `seed ${seed}`);
      assert.equal(claimPosts, 25, `seed ${seed}: claims POSTed`);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
