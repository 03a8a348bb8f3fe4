import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { ANN_BETA_STORAGE_CLASS, ANN_SELECTED_NODE } from '@pv-controller/kube/annotations.js';
import { VolumeIndex } from '../../../src/controller/binder/index.js';
import { pv, pvc, ROX, RWO, RWX } from './fixtures.js';

let uidSeq = 0;
function claim(name: string, size: string, o: Parameters<typeof pvc>[2] = {}): PersistentVolumeClaim {
  const c = pvc(name, size, o);
  c.metadata.uid = `uid-${name}-${++uidSeq}`;
  return c;
}

function indexOf(...pvs: PersistentVolume[]): VolumeIndex {
  const index = new VolumeIndex();
  pvs.forEach((v, i) => {
    v.metadata.resourceVersion ??= String(10 + i);
    index.upsert(v);
  });
  return index;
}

const nameOf = (v: PersistentVolume | undefined): string | undefined => v?.metadata.name;

test('the smallest volume at least as large as the request is chosen', () => {
  const index = indexOf(pv('big', '10Gi'), pv('small', '1Gi'), pv('fit', '2Gi'), pv('tiny', '500Mi'));
  assert.equal(nameOf(index.findBestMatch(claim('c', '1500Mi'), false)), 'fit');
  assert.equal(nameOf(index.findBestMatch(claim('c', '1Gi'), false)), 'small');
  assert.equal(index.findBestMatch(claim('c', '11Gi'), false), undefined);
});

test('the closest access-mode group beats a smaller volume in a wider group', () => {
  const index = indexOf(pv('wide-small', '1Gi', { modes: [RWO, ROX, RWX] }), pv('exact-big', '5Gi', { modes: [RWO] }));
  assert.equal(nameOf(index.findBestMatch(claim('c', '1Gi', { modes: [RWO] }), false)), 'exact-big');
  // A claim for RWX is only served by the group that contains it.
  assert.equal(nameOf(index.findBestMatch(claim('c', '1Gi', { modes: [RWX] }), false)), 'wide-small');
  assert.equal(nameOf(index.findBestMatch(claim('c', '1Gi', { modes: [RWO, RWX] }), false)), 'wide-small');
});

test('a volume pre-bound by name wins over a smaller free volume and ignores phase, selector and class', () => {
  const c = claim('c', '1Gi', { selector: { matchLabels: { tier: 'gold' } }, cls: 'fast' });
  const reserved = pv('reserved', '10Gi', { claim: c, claimNameOnly: true, phase: 'Pending', cls: 'other' });
  const index = indexOf(pv('free', '1Gi', { cls: 'fast', labels: { tier: 'gold' } }), reserved);
  assert.equal(nameOf(index.findBestMatch(c, false)), 'reserved');
});

test('a volume pre-bound by name and uid is found, one bound to another uid of the same name is not', () => {
  const c = claim('c', '1Gi');
  const mine = pv('mine', '5Gi', { claim: c, phase: 'Bound' });
  const old = claim('c', '1Gi');
  const theirs = pv('theirs', '1Gi', { claim: old, phase: 'Bound' });
  assert.equal(nameOf(indexOf(mine, theirs).findBestMatch(c, false)), 'mine');
  assert.equal(indexOf(theirs).findBestMatch(c, false), undefined);
});

test('a pre-bound volume still has to be large enough, of the same volumeMode and not being deleted', () => {
  const c = claim('c', '2Gi');
  assert.equal(indexOf(pv('small', '1Gi', { claim: c })).findBestMatch(c, false), undefined);
  assert.equal(indexOf(pv('block', '5Gi', { claim: c, volumeMode: 'Block' })).findBestMatch(c, false), undefined);
  assert.equal(indexOf(pv('gone', '5Gi', { claim: c, deleting: true })).findBestMatch(c, false), undefined);
});

test('the label selector filters candidates and the next larger matching volume is taken', () => {
  const index = indexOf(
    pv('a', '1Gi', { labels: { tier: 'bronze' } }),
    pv('b', '2Gi', { labels: { tier: 'gold' } }),
    pv('c', '3Gi', { labels: { tier: 'gold', zone: 'x' } }),
  );
  assert.equal(nameOf(index.findBestMatch(claim('c', '1Gi', { selector: { matchLabels: { tier: 'gold' } } }), false)), 'b');
  const expr = { matchExpressions: [{ key: 'zone', operator: 'Exists' as const }] };
  assert.equal(nameOf(index.findBestMatch(claim('c', '1Gi', { selector: expr }), false)), 'c');
  assert.equal(index.findBestMatch(claim('c', '1Gi', { selector: { matchLabels: { tier: 'none' } } }), false), undefined);
});

test('classes match by string equality: nil and "" claims take only class-less volumes', () => {
  const index = indexOf(pv('gold', '1Gi', { cls: 'gold' }), pv('none', '5Gi'));
  assert.equal(nameOf(index.findBestMatch(claim('c', '1Gi', { cls: 'gold' }), false)), 'gold');
  assert.equal(nameOf(index.findBestMatch(claim('c', '1Gi', { cls: '' }), false)), 'none');
  assert.equal(nameOf(index.findBestMatch(claim('c', '1Gi', { cls: null }), false)), 'none');
  assert.equal(index.findBestMatch(claim('c', '1Gi', { cls: 'silver' }), false), undefined);
});

test('the beta storage-class annotation wins over spec.storageClassName on both sides', () => {
  const beta = pv('beta', '1Gi', { cls: 'ignored', annotations: { [ANN_BETA_STORAGE_CLASS]: 'gold' } });
  const index = indexOf(beta, pv('plain', '1Gi', { cls: 'ignored' }));
  assert.equal(nameOf(index.findBestMatch(claim('c', '1Gi', { cls: 'gold' }), false)), 'beta');
  const claimBeta = claim('c', '1Gi', { cls: 'ignored', annotations: { [ANN_BETA_STORAGE_CLASS]: 'gold' } });
  assert.equal(nameOf(index.findBestMatch(claimBeta, false)), 'beta');
});

test('volumeMode must match, nil counting as Filesystem', () => {
  const index = indexOf(pv('block', '1Gi', { volumeMode: 'Block' }), pv('fs', '2Gi'));
  assert.equal(nameOf(index.findBestMatch(claim('c', '1Gi'), false)), 'fs');
  assert.equal(nameOf(index.findBestMatch(claim('c', '1Gi', { volumeMode: 'Filesystem' }), false)), 'fs');
  assert.equal(nameOf(index.findBestMatch(claim('c', '1Gi', { volumeMode: 'Block' }), false)), 'block');
});

test('volumes that are not Available, are being deleted or are claimed by another claim are never picked', () => {
  const other = claim('other', '1Gi');
  const index = indexOf(
    pv('pending', '1Gi', { phase: 'Pending' }),
    pv('released', '1Gi', { phase: 'Released' }),
    pv('failed', '1Gi', { phase: 'Failed' }),
    pv('bound', '1Gi', { phase: 'Bound', claim: other }),
    pv('reserved', '1Gi', { claim: other, claimNameOnly: true }),
    pv('deleting', '1Gi', { deleting: true }),
  );
  const noPhase = pv('nophase', '1Gi');
  delete noPhase.status;
  index.upsert(noPhase);
  assert.equal(index.findBestMatch(claim('c', '1Gi'), false), undefined);
  assert.equal(index.size(), 7);
});

test('with delayed binding only pre-bound volumes are returned', () => {
  const c = claim('c', '1Gi');
  const free = pv('free', '1Gi');
  assert.equal(indexOf(free).findBestMatch(c, true), undefined);
  assert.equal(nameOf(indexOf(free, pv('mine', '1Gi', { claim: c })).findBestMatch(c, true)), 'mine');
});

test('with delayed binding a pre-bound volume whose node affinity excludes the selected node is not returned', () => {
  const c = claim('c', '1Gi', { annotations: { [ANN_SELECTED_NODE]: 'node-b' } });
  const affinity = {
    required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In' as const, values: ['node-a'] }] }] },
  };
  const local = pv('local', '1Gi', { claim: c, nodeAffinity: affinity });
  const nodes: Record<string, Record<string, string>> = {
    'node-a': { 'kubernetes.io/hostname': 'node-a' },
    'node-b': { 'kubernetes.io/hostname': 'node-b' },
  };
  const index = new VolumeIndex({ nodeLabels: (n) => nodes[n] });
  index.upsert(local);
  assert.equal(index.findBestMatch(c, true), undefined);
  const onA = claim('c', '1Gi', { annotations: { [ANN_SELECTED_NODE]: 'node-a' } });
  onA.metadata.uid = c.metadata.uid;
  assert.equal(nameOf(index.findBestMatch(onA, true)), 'local');
});

test('an older copy of a volume does not replace a newer one, and removed volumes are gone', () => {
  const index = new VolumeIndex();
  const newer = pv('v', '1Gi', { phase: 'Bound', claim: claim('x', '1Gi') });
  newer.metadata.resourceVersion = '20';
  const older = pv('v', '1Gi');
  older.metadata.resourceVersion = '9';
  index.upsert(newer);
  index.upsert(older);
  assert.equal(index.get('v')?.status?.phase, 'Bound');
  assert.equal(index.findBestMatch(claim('c', '1Gi'), false), undefined);
  index.remove('v');
  assert.equal(index.size(), 0);
  index.upsert(older);
  assert.equal(nameOf(index.findBestMatch(claim('c', '1Gi'), false)), 'v');
});

test('the same version of a volume again (an informer echo of a write already held) keeps the copy held', () => {
  const index = new VolumeIndex();
  const written = pv('v', '1Gi');
  written.metadata.resourceVersion = '30';
  const echo = structuredClone(written);
  index.upsert(written);
  index.upsert(echo);
  assert.equal(index.get('v'), written);
  assert.equal(nameOf(index.findBestMatch(claim('c', '1Gi'), false)), 'v');
  const recreated = structuredClone(written);
  recreated.metadata.uid = `${written.metadata.uid ?? ''}-again`;
  index.upsert(recreated);
  assert.equal(index.get('v'), recreated);
});

test('a volume leaving Available leaves the candidate set', () => {
  const index = indexOf(pv('v', '1Gi'));
  const taken = pv('v', '1Gi', { phase: 'Bound', claim: claim('x', '1Gi') });
  taken.metadata.resourceVersion = '99';
  index.upsert(taken);
  assert.equal(index.findBestMatch(claim('c', '1Gi'), false), undefined);
});

test('a lookup among 10k volumes examines a logarithmic number of entries, not all of them', () => {
  const index = new VolumeIndex();
  const classes = ['gold', 'silver', ''];
  const modeSets = [[RWO], [RWO, ROX], [RWX], [RWO, ROX, RWX]];
  for (let i = 0; i < 10_000; i++) {
    const v = pv(`pv-${i}`, `${1 + (i % 5000)}Mi`, { cls: classes[i % 3], modes: modeSets[i % 4] });
    v.metadata.resourceVersion = String(i + 1);
    index.upsert(v);
  }
  assert.equal(index.size(), 10_000);
  const before = { ...index.counters };
  const found = index.findBestMatch(claim('c', '2500Mi', { cls: 'gold', modes: [RWO] }), false);
  assert.ok(found);
  const comparisons = index.counters.comparisons - before.comparisons;
  const examined = index.counters.candidatesExamined - before.candidatesExamined;
  assert.ok(comparisons <= 4 * 14, `binary searches made ${comparisons} comparisons`);
  assert.ok(examined <= 2, `examined ${examined} candidates`);
  // A selector that rejects everything walks only the fitting groups above the request size.
  const none = index.findBestMatch(claim('c', '4999Mi', { cls: 'gold', modes: [RWO], selector: { matchLabels: { no: 'pe' } } }), false);
  assert.equal(none, undefined);
  assert.ok(index.counters.candidatesExamined - before.candidatesExamined < 40);
});
