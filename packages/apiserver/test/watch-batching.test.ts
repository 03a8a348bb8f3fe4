/**
 * WatchHub writes each watcher's events of one event-loop turn as one chunk. These tests commit
 * many changes in one synchronous stretch (so they share a flush) and check that every watcher
 * still gets exactly its events, once each, in commit order, and that ending a stream first
 * writes what was queued.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { parseSelection } from '@pv-controller/apiserver/registry/selection.js';
import { MemoryStorage } from '@pv-controller/apiserver/storage/memory.js';
import type { ObjectKey } from '@pv-controller/apiserver/storage/storage.js';
import { WatchHub } from '@pv-controller/apiserver/endpoints/watch.js';
import { widgets } from './fake-strategies.js';

const RESOURCE = 'example.com/widgets';

interface Line {
  type: string;
  object: KubeObject;
}

interface Stream {
  lines: Line[];
  /** Resolves once the response headers arrived. */
  responded: Promise<void>;
  ended: Promise<void>;
}

interface Harness {
  storage: MemoryStorage;
  hub: WatchHub;
  /** Opens a watch; with `hold=1` in the query the server keeps the request until `held` is called. */
  open(query: string): Stream;
  held: (() => void)[];
}

function reader(port: number, query: string): Stream {
  const lines: Line[] = [];
  let onEnd!: () => void;
  const ended = new Promise<void>((resolve) => (onEnd = resolve));
  const responded = new Promise<void>((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path: `/?${query}` }, (res: IncomingMessage) => {
      let rest = '';
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        const parts = (rest + text).split('\n');
        rest = parts.pop() ?? '';
        for (const part of parts) lines.push(JSON.parse(part) as Line);
      });
      res.on('end', onEnd);
      resolve();
    });
    req.on('error', reject);
  });
  return { lines, responded, ended };
}

async function withHub(fn: (h: Harness) => Promise<void>): Promise<void> {
  const storage = new MemoryStorage();
  const hub = new WatchHub(storage, { log: pino({ level: 'silent' }) });
  const held: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    const params = new URL(req.url ?? '/', 'http://x').searchParams;
    const serve = (): void =>
      hub.serve(res, {
        strategy: widgets,
        resource: RESOURCE,
        selection: parseSelection(params, widgets, undefined),
        allowBookmarks: false,
        form: { kind: 'json' },
      });
    if (params.get('hold') === '1') held.push(serve);
    else serve();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    await fn({ storage, hub, open: (query) => reader(port, query), held });
  } finally {
    hub.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await storage.close();
  }
}

function key(name: string): ObjectKey {
  return { resource: RESOURCE, namespace: '', name };
}

function widget(name: string, color: string, size: number): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, labels: { color } }, spec: { size } };
}

async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function summary(lines: Line[]): string[] {
  return lines.map((l) => `${l.type} ${l.object.metadata.name} ${l.object.metadata.resourceVersion}`);
}

test('changes committed in one tick reach every watcher once each, in commit order, with selector transitions', () =>
  withHub(async ({ storage, hub, open }) => {
    const all = [open(''), open(''), open('')];
    const red = open('labelSelector=color%3Dred');
    await Promise.all([...all, red].map((w) => w.responded));
    await until(() => hub.activeWatches() === 4, 'four watches');
    const n = 40;
    for (let i = 0; i < n; i++) storage.write({ type: 'create', key: key(`w${i}`), object: widget(`w${i}`, i % 2 ? 'red' : 'blue', i) });
    // w0 turns red (enters the selection), w1 turns blue (leaves it), w3 is deleted.
    storage.write({ type: 'update', key: key('w0'), object: widget('w0', 'red', 100) });
    storage.write({ type: 'update', key: key('w1'), object: widget('w1', 'blue', 100) });
    storage.write({ type: 'delete', key: key('w3') });
    const total = n + 3;
    await until(() => all.every((s) => s.lines.length >= total), 'every plain watcher to get every event');
    const expected = [
      ...Array.from({ length: n }, (_, i) => `ADDED w${i} ${i + 1}`),
      `MODIFIED w0 ${n + 1}`,
      `MODIFIED w1 ${n + 2}`,
      `DELETED w3 ${n + 3}`,
    ];
    for (const s of all) assert.deepEqual(summary(s.lines), expected);
    const redExpected = [
      ...Array.from({ length: n / 2 }, (_, k) => `ADDED w${2 * k + 1} ${2 * k + 2}`),
      `ADDED w0 ${n + 1}`,
      `DELETED w1 ${n + 2}`,
      `DELETED w3 ${n + 3}`,
    ];
    await until(() => red.lines.length >= redExpected.length, 'the selecting watcher to get its events');
    assert.deepEqual(summary(red.lines), redExpected);
  }));

test('a watch that starts after a commit but before its delivery gets that change once, from its initial list', () =>
  withHub(async ({ storage, hub, open, held }) => {
    const first = open('');
    await first.responded;
    const second = open('hold=1');
    await until(() => held.length === 1, 'the second watch request to arrive');
    storage.write({ type: 'create', key: key('a'), object: widget('a', 'red', 1) });
    await Promise.resolve(); // the memory commit (a microtask) queues the change in the hub
    held[0](); // lists "a" as its initial state, while "a" still waits in the hub's queue
    await second.responded;
    storage.write({ type: 'create', key: key('b'), object: widget('b', 'red', 1) });
    await until(() => first.lines.length >= 2 && second.lines.length >= 2, 'both watchers to see both objects');
    assert.equal(hub.activeWatches(), 2);
    assert.deepEqual(summary(first.lines), ['ADDED a 1', 'ADDED b 2']);
    assert.deepEqual(summary(second.lines), ['ADDED a 1', 'ADDED b 2']);
  }));

test('closing the hub right after a commit still writes the queued events before ending the stream', () =>
  withHub(async ({ storage, hub, open }) => {
    const s = open('');
    await s.responded;
    storage.write({ type: 'create', key: key('a'), object: widget('a', 'red', 1) });
    storage.write({ type: 'create', key: key('b'), object: widget('b', 'red', 2) });
    await Promise.resolve(); // the memory commit (a microtask) queues the changes in the hub
    hub.close();
    await s.ended;
    assert.deepEqual(summary(s.lines), ['ADDED a 1', 'ADDED b 2']);
  }));
