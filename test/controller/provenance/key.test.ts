import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HmacProvenance, loadOrCreateKey, type KeyStore } from '../../../src/controller/provenance/key.js';

const key = Buffer.alloc(32, 7);

test('a provenance proof verifies only for the driver, handle and PV name it was made for, and only under its key', () => {
  const p = new HmacProvenance(key);
  const proof = p.sign('csi.example.com', 'vol-1', 'pvc-a');
  assert.match(proof, /^v1:[A-Za-z0-9_-]{43}$/);
  assert.equal(p.verify('csi.example.com', 'vol-1', 'pvc-a', proof), true);
  assert.equal(p.verify('csi.example.com', 'vol-2', 'pvc-a', proof), false, 'another volume');
  assert.equal(p.verify('csi.example.com', 'vol-1', 'pvc-b', proof), false, 'another PV');
  assert.equal(p.verify('other.example.com', 'vol-1', 'pvc-a', proof), false, 'another driver');
  assert.equal(p.verify('csi.example.com', 'vol-1', 'pvc-a', undefined), false, 'no proof');
  assert.equal(p.verify('csi.example.com', 'vol-1', 'pvc-a', 'v1:forged'), false);
  assert.equal(p.verify('csi.example.com', 'vol-1', 'pvc-a', `${proof}x`), false);
  assert.equal(new HmacProvenance(Buffer.alloc(32, 8)).verify('csi.example.com', 'vol-1', 'pvc-a', proof), false, 'another key');
  // Fields cannot be shifted between one another.
  assert.notEqual(p.sign('a', 'b\u0001c', 'd'), p.sign('a', 'b', '\u0001cd'));
});

function memoryStore(initial?: Buffer): KeyStore & { creates: number } {
  let stored = initial;
  return {
    creates: 0,
    async read() {
      return stored;
    },
    async create(k) {
      this.creates++;
      if (stored) return false;
      stored = k;
      return true;
    },
  };
}

test('the key is created once at the first start and read by every later start', async () => {
  const store = memoryStore();
  const first = await loadOrCreateKey(store);
  assert.equal(first.length, 32);
  assert.deepEqual(await loadOrCreateKey(store), first);
  assert.equal(store.creates, 1);
});

test('a replica that loses the race to create the key uses the winner\'s', async () => {
  const winner = Buffer.alloc(32, 9);
  let reads = 0;
  const store: KeyStore = {
    read: async () => (reads++ === 0 ? undefined : winner),
    create: async () => false,
  };
  assert.deepEqual(await loadOrCreateKey(store), winner);
});

test('a key Secret too short to be a key is refused, never used', async () => {
  await assert.rejects(loadOrCreateKey(memoryStore(Buffer.alloc(4))), /fewer than 16 bytes/);
});

test('a snapshot proof verifies only for its driver, handle and content name, and is never a CSI volume proof', () => {
  const p = new HmacProvenance(Buffer.alloc(32, 3));
  const proof = p.signSnapshot('csi.example.com', 'snap-1', 'snapcontent-a');
  assert.equal(p.verifySnapshot('csi.example.com', 'snap-1', 'snapcontent-a', proof), true);
  assert.equal(p.verifySnapshot('csi.example.com', 'snap-2', 'snapcontent-a', proof), false, 'another handle');
  assert.equal(p.verifySnapshot('csi.example.com', 'snap-1', 'snapcontent-b', proof), false, 'another content');
  assert.equal(p.verifySnapshot('other.example.com', 'snap-1', 'snapcontent-a', proof), false, 'another driver');
  assert.equal(p.verify('csi.example.com', 'snap-1', 'snapcontent-a', proof), false, 'a snapshot proof is no volume proof');
  assert.equal(p.verifySnapshot('csi.example.com', 'snap-1', 'snapcontent-a', p.sign('csi.example.com', 'snap-1', 'snapcontent-a')), false, 'and the reverse');
});
