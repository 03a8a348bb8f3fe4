import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goFormatValue, goQuote, summarizeBody } from '@pv-controller/apiserver/decode/go-text.js';
import { normalizeMicroTime, normalizeTime, parseGoTime, RFC3339 } from '@pv-controller/apiserver/decode/go-time.js';

function timeError(value: string, micro = false): string {
  try {
    if (micro) normalizeMicroTime(value);
    else normalizeTime(value);
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail(`${value} parsed`);
}

test('goQuote quotes as strconv.Quote: printable runes kept, quotes, controls and separators escaped', () => {
  assert.equal(goQuote('spec.f€o'), '"spec.f€o"');
  assert.equal(goQuote('a\u0001b'), '"a\\x01b"');
  assert.equal(goQuote('c\nd\te'), '"c\\nd\\te"');
  assert.equal(goQuote('e"f\\g'), '"e\\"f\\\\g"');
  assert.equal(goQuote('\u2028x\u00a0'), '"\\u2028x\\u00a0"');
  assert.equal(goQuote('héi 😀'), '"héi 😀"');
});

test('a body summary is the first 30 bytes, as text for JSON and as hex otherwise', () => {
  assert.equal(summarizeBody(Buffer.alloc(0)), '<empty>');
  assert.equal(summarizeBody(Buffer.from('{"apiVersion":"v1","kind":"PersistentVolume"}')), '{"apiVersion":"v1","kind":"Per ...');
  assert.equal(summarizeBody(Buffer.from('[1]')), '5b315d');
});

test('goFormatValue prints a decoded JSON value as Go prints a map with %v', () => {
  assert.equal(goFormatValue({ zz: 1, spec: { hostPath: { foo: 1 } }, l: ['a', true, null] }), 'map[l:[a true <nil>] spec:map[hostPath:map[foo:1]] zz:1]');
});

test('RFC 3339 times are parsed as Go parses them and written back in UTC', () => {
  assert.equal(normalizeTime('2024-05-01T10:00:00Z'), '2024-05-01T10:00:00Z');
  assert.equal(normalizeTime('2024-05-01T10:00:00.999-01:30'), '2024-05-01T11:30:00Z');
  assert.equal(normalizeTime('0050-01-01T00:00:00Z'), '0050-01-01T00:00:00Z');
  assert.equal(normalizeMicroTime('2024-05-01T10:00:00.000001Z'), '2024-05-01T10:00:00.000001Z');
  assert.equal(parseGoTime('2024-02-29T00:00:00Z', RFC3339).ms, Date.UTC(2024, 1, 29));
});

test('a time Go cannot parse is refused with Go\'s time.Parse text', () => {
  assert.equal(timeError('yesterday'), 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"');
  assert.equal(timeError('2024-05-01 10:00:00Z'), 'parsing time "2024-05-01 10:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 10:00:00Z" as "T"');
  assert.equal(timeError('2024-13-01T10:00:00Z'), 'parsing time "2024-13-01T10:00:00Z": month out of range');
  assert.equal(timeError('2023-02-29T10:00:00Z'), 'parsing time "2023-02-29T10:00:00Z": day out of range');
  assert.equal(timeError('2024-05-01T10:00:00Zjunk'), 'parsing time "2024-05-01T10:00:00Zjunk": extra text: "junk"');
  assert.equal(timeError('2024-05-01T10:00:00'), 'parsing time "2024-05-01T10:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"');
  assert.equal(timeError('2024-05-01T10:00:00Z', true),
    'parsing time "2024-05-01T10:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"');
  assert.equal(timeError('2024-05-01T10:00:00€'), 'parsing time "2024-05-01T10:00:00\\xe2\\x82\\xac" as "2006-01-02T15:04:05Z07:00": cannot parse "\\xe2\\x82\\xac" as "Z07:00"');
});
