import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { formatTextLine as apiserverTextLine } from '@pv-controller/apiserver/log.js';
import { createControllerLogger, renderTextRecord } from '../src/controller/runtime/log.js';
import { createLogger, formatTextLine } from '@pv-controller/kube/log.js';
import { waitFor } from './helpers/wait.js';

const RECORD = JSON.stringify({ level: 30, time: Date.UTC(2026, 0, 2, 3, 4, 5), pid: 1, hostname: 'h', msg: 'claim bound', claim: 'default/data', why: 'best match', n: 2 });

function capture(): { out: PassThrough; lines: () => string[] } {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { out, lines: () => text.split('\n').filter((l) => l !== '') };
}

test('a text line is time, padded level, message, then the fields but pid and hostname', () => {
  assert.equal(formatTextLine(RECORD), '2026-01-02T03:04:05.000Z INFO  claim bound claim=default/data why=best match n=2');
});

test('quoteSpacedValues writes string values with white space as JSON strings, others as they are', () => {
  assert.equal(formatTextLine(RECORD, { quoteSpacedValues: true }), '2026-01-02T03:04:05.000Z INFO  claim bound claim=default/data why="best match" n=2');
});

test('a line that is not JSON passes through unchanged', () => {
  assert.equal(formatTextLine('not json {'), 'not json {');
});

test('the API server leaves spaced values bare; the controller quotes them', () => {
  assert.match(apiserverTextLine(RECORD), / why=best match /);
  assert.match(renderTextRecord(RECORD), / why="best match" /);
});

test('a json logger writes one pino JSON record a line to the given stream, with its name', async () => {
  const { out, lines } = capture();
  createLogger('json', { level: 'info', name: 'unit', out }).info({ pv: 'pv-1' }, 'hello');
  const [line] = await waitFor(() => lines().length === 1 && lines(), 'one line');
  const rec = JSON.parse(line!) as Record<string, unknown>;
  assert.equal(rec.msg, 'hello');
  assert.equal(rec.name, 'unit');
  assert.equal(rec.pv, 'pv-1');
});

test('a text logger drops records below its level and renders the rest as text lines', async () => {
  const { out, lines } = capture();
  const log = createLogger('text', { level: 'warn', out });
  log.info('hidden');
  log.warn({ pv: 'pv-1' }, 'shown');
  const [line] = await waitFor(() => lines().length === 1 && lines(), 'one line');
  assert.match(line!, /^\S+Z WARN {2}shown pv=pv-1$/);
});

test('the controller logger never writes a token or password, however it is nested', async () => {
  const { out, lines } = capture();
  createControllerLogger('json', 'info', out).info({ token: 's3cret', auth: { password: 'hunter2' }, headers: { Authorization: 'Bearer x' } }, 'login');
  const [line] = await waitFor(() => lines().length === 1 && lines(), 'one line');
  assert.doesNotMatch(line!, /s3cret|hunter2|Bearer x/);
  assert.equal((JSON.parse(line!) as { name: string }).name, 'pv-controller');
});
