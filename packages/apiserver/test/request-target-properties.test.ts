/**
 * Property tests of the request line: paths built from hostile segments decode as Go's
 * net/url decodes them and reach no other object; query strings decode pair by pair as
 * url.ParseQuery does, and every query is parsed into options or refused with a Status.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseQuery, parseRequestTarget } from '@pv-controller/apiserver/api/request-target.js';
import { parseResourcePath } from '@pv-controller/apiserver/api/router.js';
import { queryLaws, requestTargetLaws } from '../../../test/fuzz/laws/text-parsers.js';

const HOSTILE_SEGMENTS = ['.', '..', '%2e', '%2E%2e', '', '%2F', '%2f..', 'a%00b', '%25', '~', 'é', '%C3%A9', '%ff', '+', ' ', ';x', 'pv-1'];
const segment = fc.oneof(fc.constantFrom(...HOSTILE_SEGMENTS), fc.string({ unit: fc.constantFrom(...'a.%2eF/-'.split('')), maxLength: 6 }));

/** What Go's PathUnescape makes of a segment; undefined for a bad escape. */
function goUnescape(s: string): string | undefined {
  if (/%(?![0-9A-Fa-f]{2})/.test(s)) return undefined;
  return Buffer.from(s.replace(/%([0-9A-Fa-f]{2})|[^%]+/g, (m: string, hex?: string) => (hex ? String.fromCharCode(parseInt(hex, 16)) : Buffer.from(m, 'utf8').toString('latin1'))), 'latin1').toString('utf8');
}

test('a path of hostile segments is decoded once, never resolved, and keeps the request-target laws', () => {
  const prefixes = ['/api/v1/namespaces/ns/persistentvolumeclaims/', '/api/v1/persistentvolumes/', '/apis/storage.k8s.io/v1/', '/api/v1/', '/'];
  fc.assert(fc.property(fc.constantFrom(...prefixes), fc.array(segment, { maxLength: 4 }), (prefix, segments) => {
    const raw = prefix + segments.join('/');
    const want = goUnescape(raw);
    let got: string | undefined;
    try {
      got = parseRequestTarget(raw).path;
    } catch {
      got = undefined;
    }
    assert.equal(got, want, raw);
    requestTargetLaws(raw);
    if (want !== undefined && want.startsWith(prefix) && prefix.includes('persistentvolumeclaims')) {
      const resource = parseResourcePath(want);
      assert.ok(resource === undefined || resource.plural === 'persistentvolumeclaims', `${raw} stays on claims`);
    }
  }), { numRuns: 3000 });
});

test('any request-target text is a bare 400 or keeps the request-target laws', () => {
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }).map((s) => `/${s}`), (target) => requestTargetLaws(target)), { numRuns: 2000 });
  fc.assert(fc.property(fc.string({ unit: fc.constantFrom(...'/api/v1?%2e.#&=:'.split('')), maxLength: 30 }), (target) => requestTargetLaws(target)), { numRuns: 2000 });
});

test('a query string decodes pair by pair: every percent-encoded pair comes back as it was, in order', () => {
  const text = fc.string({ unit: fc.constantFrom(...'ab=&;%+ é/'.split('')), maxLength: 6 });
  fc.assert(fc.property(fc.array(fc.tuple(text, text), { maxLength: 5 }), (pairs) => {
    const encoded = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    assert.deepEqual([...parseQuery(encoded)], pairs, encoded);
  }), { numRuns: 2000 });
});

test('a query pair with ";" or a bad escape is dropped and the others kept, as url.ParseQuery does', () => {
  assert.deepEqual([...parseQuery('a=1&b=2;c&d=%zz&e%=1&f=%41')], [['a', '1'], ['f', 'A']]);
  fc.assert(fc.property(fc.string({ unit: fc.constantFrom(...'ab=&;%+2F'.split('')), maxLength: 20 }), (raw) => queryLaws(raw)), { numRuns: 2000 });
});

test('any list, write or delete query of hostile values is parsed into options or refused with a Status', () => {
  const names = ['labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'resourceVersionMatch', 'watch', 'timeoutSeconds',
    'sendInitialEvents', 'allowWatchBookmarks', 'dryRun', 'fieldManager', 'fieldValidation', 'gracePeriodSeconds', 'propagationPolicy', 'orphanDependents'];
  const values = ['', '0', '-1', '1', 'true', 'True', 'abc', '9223372036854775808', '-9223372036854775809', 'All', 'all', 'Strict', 'NotOlderThan', 'Exact',
    'a=b', '!a', 'a in (', 'metadata.name=x\\', '%zz', 'Orphan', 'Foreground', 'x'.repeat(200)];
  const query = fc.array(fc.tuple(fc.constantFrom(...names), fc.constantFrom(...values)), { maxLength: 5 })
    .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&'));
  fc.assert(fc.property(query, (raw) => queryLaws(raw)), { numRuns: 3000 });
});
