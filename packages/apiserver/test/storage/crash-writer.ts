/**
 * Child process of the crash test: opens SqliteStorage in the directory given as argv[2] and
 * writes until killed. Each burst creates 25 objects ("obj-<n>", spec.n = n) and updates one
 * counter object (spec.count = burst number). A line is printed only after its write's
 * `durable` resolved:  "C <rv> <n>"  for a create,  "U <rv> <count>"  for a counter update.
 */
import { pino } from 'pino';
import { SqliteStorage } from '@pv-controller/apiserver/storage/sqlite.js';
import type { ObjectKey } from '@pv-controller/apiserver/storage/storage.js';

const BURST = 25;
const dir = process.argv[2];
if (!dir) throw new Error('usage: crash-writer <data dir>');

const storage = SqliteStorage.open(dir, { logger: pino({ level: 'silent' }), lockTimeoutMs: 0 });
const counterKey: ObjectKey = { resource: 'counters', namespace: 'crash', name: 'counter' };

async function writeBurst(burst: number, firstN: number): Promise<void> {
  const acks: Promise<string>[] = [];
  for (let n = firstN; n < firstN + BURST; n++) {
    const key: ObjectKey = { resource: 'things', namespace: 'crash', name: `obj-${n}` };
    const object = { metadata: { name: key.name, namespace: key.namespace }, spec: { n } };
    const { change, durable } = storage.write({ type: 'create', key, object });
    acks.push(durable.then(() => `C ${change.rv} ${n}\n`));
  }
  const type = storage.get(counterKey) === undefined ? 'create' : 'update';
  const counter = { metadata: { name: counterKey.name, namespace: counterKey.namespace }, spec: { count: burst } };
  const { change, durable } = storage.write({ type, key: counterKey, object: counter });
  acks.push(durable.then(() => `U ${change.rv} ${burst}\n`));
  process.stdout.write((await Promise.all(acks)).join(''));
}

for (let burst = 0; ; burst++) await writeBurst(burst, burst * BURST);
