import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runBench } from '../helpers/bench.js';
import { realControlPlaneSkip } from '../helpers/control-plane.js';

describe('npm run bench -- --real-cluster (tiny sizes)', { skip: realControlPlaneSkip() }, () => {
  const results = mkdtempSync(join(tmpdir(), 'bench-real-'));
  after(() => rmSync(results, { recursive: true, force: true }));

  it('binds, provisions and deletes with both controllers and writes on both servers, every figure a number', { timeout: 900_000 }, async () => {
    const run = await runBench(['--real-cluster', '--quick', '--n', '20', '--writes', '60', '--concurrency', '4', '--results-dir', results]);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr.slice(-3000)}`);
    assert.doesNotMatch(run.stdout, /\s{2}(failed|skipped): /);
    assert.match(run.stdout, /^real-bind\s+bind 20 pairs, kube-controller-manager\s+[\d,]+ pairs\/s; create→Bound p50 [\d,]+ ms/m);
    assert.match(run.stdout, /^real-bind\s+ours \/ KCM, 20 pairs\s+pairs\/s \d+\.\d\d×/m);
    assert.match(run.stdout, /^real-bind\s+API traffic per bound claim \(audit log\), 20\s+pv-controller 5\.00 requests, 5\.00 writes/m, 'the binder\'s 4 and the Unused condition\'s 1, as KCM');
    assert.match(run.stdout, /^real-provision\s+ours \/ KCM, 20 claims\s+provision claims\/s \d+\.\d\d×, delete claims\/s \d+\.\d\d×/m);
    assert.match(run.stdout, /^real-apiserver\s+PV creates, raw-https, pv-controller apiserver, memory\s+[\d,]+ writes\/s = \d+\.\d\d× kube-apiserver/m);
    assert.match(run.stdout, /^real-memory\s+RSS with 1,000 objects, kube-apiserver \+ etcd\s+\d+ MB .*: kube-apiserver \d+ MB \+ etcd \d+ MB/m);
  });
});
