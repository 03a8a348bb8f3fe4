/**
 * Property tests of resource.Quantity parsing: laws over any text (refused with
 * QuantityParseError, or canonical and round-tripping), and the value against a model that
 * shifts the decimal point in the written digits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Quantity } from '@pv-controller/kube/quantity.js';
import { quantityLaws } from '../../../test/fuzz/laws/text-parsers.js';

const DECIMAL_SUFFIXES: Array<[string, number]> = [['n', -9], ['u', -6], ['m', -3], ['', 0], ['k', 3], ['M', 6], ['G', 9], ['T', 12], ['P', 15], ['E', 18]];
const BINARY_SUFFIXES: Array<[string, bigint]> = [['Ki', 1n << 10n], ['Mi', 1n << 20n], ['Gi', 1n << 30n], ['Ti', 1n << 40n], ['Pi', 1n << 50n], ['Ei', 1n << 60n]];

const quantityChars = fc.constantFrom(...'0123456789.+-eEinumkKMGTP '.split(''));
const digits = (max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), maxLength: max });

/** Nanos of `sign whole.fraction × 10^exponent`, rounded away from zero, by moving the point in the digit string. */
function modelNanos(negative: boolean, whole: string, fraction: string, exponent: number): bigint {
  const all = (whole || '0') + fraction;
  const point = (whole || '0').length + exponent + 9;
  const integer = point <= 0 ? '0' : all.slice(0, point).padEnd(point, '0');
  const rest = point <= 0 ? all : all.slice(Math.max(point, 0));
  const magnitude = BigInt(integer) + (/[1-9]/.test(rest) ? 1n : 0n);
  return negative ? -magnitude : magnitude;
}

test('any text of quantity characters is refused with QuantityParseError or parses to a canonical form that round-trips', () => {
  fc.assert(fc.property(fc.string({ unit: quantityChars, maxLength: 40 }), (text) => quantityLaws(text)), { numRuns: 2000 });
});

test('any text at all is refused with QuantityParseError or keeps the quantity laws', () => {
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (text) => quantityLaws(text)), { numRuns: 1000 });
});

test('a decimal quantity is its digits shifted by the suffix, rounded up to the nano, as a digit-string model says', () => {
  const written = fc.record({
    negative: fc.boolean(), whole: digits(25), fraction: fc.option(digits(25), { nil: undefined }),
    suffix: fc.oneof(fc.constantFrom(...DECIMAL_SUFFIXES).map(([s, e]) => ({ text: s, exponent: e })),
      fc.integer({ min: -420, max: 380 }).map((e) => ({ text: `e${e}`, exponent: e }))),
  }).filter((q) => q.whole !== '' || (q.fraction ?? '') !== '');
  fc.assert(fc.property(written, ({ negative, whole, fraction, suffix }) => {
    const text = `${negative ? '-' : ''}${whole}${fraction === undefined ? '' : `.${fraction}`}${suffix.text}`;
    assert.equal(Quantity.parse(text).nanos, modelNanos(negative, whole, fraction ?? '', suffix.exponent), text);
  }), { numRuns: 2000 });
});

const INT64_MAX = (1n << 63n) - 1n;

test('a binary quantity is its whole number times its power of 1024 (capped at the largest int64), equal to the same bytes in decimal', () => {
  fc.assert(fc.property(fc.bigInt({ min: 0n, max: 1n << 40n }), fc.constantFrom(...BINARY_SUFFIXES), (n, [suffix, factor]) => {
    const q = Quantity.parse(`${n}${suffix}`);
    const bytes = n * factor > INT64_MAX ? INT64_MAX : n * factor;
    assert.equal(q.toBytes(), bytes);
    assert.equal(q.cmp(Quantity.parse(`${bytes}`)), 0);
  }), { numRuns: 500 });
});

test('the canonical form of a quantity with more digits than its written exponent shows parses again (2010e420)', () => {
  const q = Quantity.parse('201000000000000000000000e400');
  assert.equal(q.toString(), '2010e420', 'kube-apiserver stores this quantity as 2010e420');
  assert.equal(Quantity.parse(q.toString()).nanos, q.nanos);
  assert.equal(Quantity.parse('1e401').toString(), '100e399', "kube-apiserver's canonical form of 1e401");
});

test('a long mantissa with a large negative exponent keeps its value instead of rounding to one nano', () => {
  const q = Quantity.parse(`1${'0'.repeat(500)}e-450`);
  assert.equal(q.toString(), '100e48');
});

test('a quantity above a thousand digits is refused before any arithmetic, however it is written', () => {
  for (const text of ['1e1000', `${'9'.repeat(1001)}`, `${'1'.repeat(600)}e600`, '1e2147483647']) {
    assert.throws(() => Quantity.parse(text), /quantity too large/, text.slice(0, 30));
  }
  assert.equal(Quantity.parse('1e999').toString(), '1e999');
});
