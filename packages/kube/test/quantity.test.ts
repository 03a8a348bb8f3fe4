import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compareQuantityStrings,
  formatBytes,
  isValidQuantity,
  parseQuantity,
  Quantity,
  QuantityParseError,
  quantityToBytes,
  type QuantityFormat,
} from '@pv-controller/kube/quantity.js';

/** mantissa × 10^exponent, in nanos. */
function nanos(mantissa: bigint, exponent: number): bigint {
  const shifted = exponent + 9;
  return shifted >= 0 ? mantissa * 10n ** BigInt(shifted) : mantissa / 10n ** BigInt(-shifted);
}

const MAX_INT64_NANOS = 9223372036854775807n * 1_000_000_000n;

// Cases from apimachinery's TestQuantityParse: input, value (mantissa, exponent), format.
const parseCases: [string, bigint, number, QuantityFormat][] = [
  ['0', 0n, 0, 'DecimalSI'],
  ['0n', 0n, 0, 'DecimalSI'],
  ['0Ki', 0n, 0, 'BinarySI'],
  ['0M', 0n, 0, 'DecimalSI'],
  ['1', 1n, 0, 'DecimalSI'],
  ['1Ki', 1024n, 0, 'BinarySI'],
  ['7Mi', 7n * 1024n ** 2n, 0, 'BinarySI'],
  ['6Gi', 6n * 1024n ** 3n, 0, 'BinarySI'],
  ['5Ti', 5n * 1024n ** 4n, 0, 'BinarySI'],
  ['4Pi', 4n * 1024n ** 5n, 0, 'BinarySI'],
  ['3Ei', 3n * 1024n ** 6n, 0, 'BinarySI'],
  ['5n', 5n, -9, 'DecimalSI'],
  ['4u', 4n, -6, 'DecimalSI'],
  ['3m', 3n, -3, 'DecimalSI'],
  ['8k', 8n, 3, 'DecimalSI'],
  ['50k', 5n, 4, 'DecimalSI'],
  ['6G', 6n, 9, 'DecimalSI'],
  ['2P', 2n, 15, 'DecimalSI'],
  ['1E', 1n, 18, 'DecimalSI'],
  ['1E-3', 1n, -3, 'DecimalExponent'],
  ['1e3', 1n, 3, 'DecimalExponent'],
  ['1E18', 1n, 18, 'DecimalExponent'],
  ['1e14', 1n, 14, 'DecimalExponent'],
  ['100.035k', 100035n, 0, 'DecimalSI'],
  ['0.001', 1n, -3, 'DecimalSI'],
  ['0.0005k', 5n, -1, 'DecimalSI'],
  ['0.00050k', 5n, -1, 'DecimalSI'],
  ['0.5e-2', 5n, -3, 'DecimalExponent'],
  ['10.035M', 10035n, 3, 'DecimalSI'],
  ['1.3E+6', 13n, 5, 'DecimalExponent'],
  ['1.7E18', 17n, 17, 'DecimalExponent'],
  ['6.987654321G', 6987654321n, 0, 'DecimalSI'],
  ['1.01E', 101n, 16, 'DecimalSI'],
  ['3.001n', 4n, -9, 'DecimalSI'],
  ['1.1E-9', 2n, -9, 'DecimalExponent'],
  ['0.0000000001', 1n, -9, 'DecimalSI'],
  ['0.00000012345', 124n, -9, 'DecimalSI'],
  ['12E', 12n, 18, 'DecimalSI'],
  ['100.035Ki', 10243584n, -2, 'BinarySI'],
  ['0.5Mi', 524288n, 0, 'BinarySI'],
  ['0.05Gi', 536870912n, -1, 'BinarySI'],
  ['0.000000000001Ki', 2n, -9, 'DecimalSI'],
  ['.001', 1n, -3, 'DecimalSI'],
  ['.0001k', 100n, -3, 'DecimalSI'],
  ['1.', 1n, 0, 'DecimalSI'],
  ['1.G', 1n, 9, 'DecimalSI'],
];

test('parses every apimachinery quantity case to its exact value and format', () => {
  for (const [input, mantissa, exponent, format] of parseCases) {
    const q = Quantity.parse(input);
    assert.equal(q.nanos, nanos(mantissa, exponent), input);
    assert.equal(q.format, format, input);
    const negative = Quantity.parse(`-${input}`);
    assert.equal(negative.nanos, -nanos(mantissa, exponent), `-${input}`);
    assert.equal(Quantity.parse(`+${input}`).nanos, q.nanos, `+${input}`);
  }
});

test('binary quantities above the largest int64 are capped like apimachinery', () => {
  assert.equal(Quantity.parse('9Ei').nanos, MAX_INT64_NANOS);
  assert.equal(Quantity.parse('9223372036854775807Ki').nanos, MAX_INT64_NANOS);
});

test('rejects malformed quantities with QuantityParseError', () => {
  const invalid = ['', '1.1.M', '1+1.0M', '0.1mi', '0.1am', 'aoeu', '.5i', '1i', '-3.01i', '-3.01e-',
    '1e4294967297', ' 1', '1 ', '10 Gi', '1e', '1Gi ', '1KiB'];
  for (const s of invalid) {
    assert.throws(() => Quantity.parse(s), QuantityParseError, JSON.stringify(s));
    assert.equal(isValidQuantity(s), false, s);
  }
});

// From apimachinery's TestQuantityString: value, format, canonical form, an alternate spelling.
const stringCases: [bigint, number, QuantityFormat, string, string][] = [
  [1024n ** 3n, 0, 'BinarySI', '1Gi', '1024Mi'],
  [300n * 1024n ** 2n, 0, 'BinarySI', '300Mi', '307200Ki'],
  [1001n * 1024n ** 3n, 0, 'BinarySI', '1001Gi', '1025024Mi'],
  [1024n ** 4n, 0, 'BinarySI', '1Ti', '1024Gi'],
  [5n, 0, 'BinarySI', '5', '5000m'],
  [500n, -3, 'BinarySI', '500m', '0.5'],
  [1n, 9, 'DecimalSI', '1G', '1000M'],
  [1000n, 6, 'DecimalSI', '1G', '0.001T'],
  [1n, -3, 'DecimalSI', '1m', '1000u'],
  [1080n, -3, 'DecimalSI', '1080m', '1.08'],
  [108n, -2, 'DecimalSI', '1080m', '1080000000n'],
  [300n, 6, 'DecimalSI', '300M', ''],
  [1n, 21, 'DecimalSI', '1e21', '1000E'],
  [5n, 21, 'DecimalSI', '5e21', '5000E'],
  [1n, 70, 'BinarySI', '10e69', ''],
  [1n, 72, 'BinarySI', '1e72', ''],
  [1234567n, 6, 'DecimalSI', '1234567M', ''],
  [1234567n, -3, 'BinarySI', '1234567m', ''],
  [1025n, 0, 'BinarySI', '1025', ''],
  [0n, 0, 'BinarySI', '0', ''],
  [1n, 9, 'DecimalExponent', '1e9', '.001e12'],
  [1n, -3, 'DecimalExponent', '1e-3', '0.001e0'],
  [1n, -9, 'DecimalExponent', '1e-9', '1000e-12'],
  [80n, -3, 'DecimalExponent', '80e-3', ''],
  [0n, 0, 'DecimalExponent', '0', '00'],
  [1080n, -9, 'DecimalSI', '1080n', ''],
  [1080n, -6, 'DecimalSI', '1080u', ''],
];

test('prints the canonical form apimachinery serialises, and alternate spellings canonicalise to it', () => {
  for (const [mantissa, exponent, format, canonical, alternate] of stringCases) {
    const q = new Quantity(nanos(mantissa, exponent), format);
    assert.equal(q.toString(), canonical);
    assert.equal(Quantity.parse(canonical).toString(), canonical);
    if (alternate) assert.equal(Quantity.parse(alternate).toString(), canonical, alternate);
    if (mantissa !== 0n) assert.equal(new Quantity(-q.nanos, format).toString(), `-${canonical}`);
  }
  assert.equal(new Quantity(1024n ** 7n * 1_000_000_000n, 'BinarySI').toString(), '1180591620717411303424');
  // TestBinarySIZeroExponentString: a binary integer ≥ 1024 with no binary suffix stays plain.
  assert.equal(Quantity.fromBytes(2000n).toString(), '2000');
  assert.equal(Quantity.fromBytes(-2000n).toString(), '-2000');
});

test('parse then print matches apimachinery TestQuantityParseEmit', () => {
  const cases: [string, string][] = [
    ['1024Mi', '1Gi'], ['1000M', '1G'], ['.001Ki', '1024m'], ['.000001Ki', '1024u'],
    ['.000000001Ki', '1024n'], ['.000000000001Ki', '2n'], ['1.5Gi', '1536Mi'], ['1.5G', '1500M'],
    ['-0', '0'], ['0.1', '100m'],
  ];
  for (const [input, out] of cases) assert.equal(parseQuantity(input).toString(), out, input);
});

test('compares quantities exactly across formats', () => {
  assert.equal(compareQuantityStrings('0', '0'), 0);
  assert.equal(compareQuantityStrings('100m', '50m'), 1);
  assert.equal(compareQuantityStrings('50m', '100m'), -1);
  assert.equal(compareQuantityStrings('10000T', '100Gi'), 1);
  assert.equal(compareQuantityStrings('1Gi', '1073741824'), 0);
  assert.equal(compareQuantityStrings('1G', '1Gi'), -1);
  assert.equal(compareQuantityStrings('9223372036854775808', '9223372036854775807'), 1);
});

test('converts to whole bytes rounding up and formats bytes canonically', () => {
  assert.equal(quantityToBytes('1Gi'), 1073741824n);
  assert.equal(quantityToBytes('1.5Gi'), 1610612736n);
  assert.equal(quantityToBytes('100m'), 1n);
  assert.equal(quantityToBytes('2500m'), 3n);
  assert.equal(quantityToBytes('12E'), 12_000_000_000_000_000_000n);
  assert.equal(formatBytes(1073741824n), '1Gi');
  assert.equal(formatBytes(1000n), '1k'); // below 1024 a binary quantity prints as decimal SI
  assert.equal(formatBytes(1025n), '1025');
  assert.equal(formatBytes(10n * 1024n ** 3n), '10Gi');
  assert.equal(formatBytes(1_500_000_000n, false), '1500M');
  assert.equal(formatBytes(0n), '0');
  assert.equal(JSON.stringify({ q: parseQuantity('2048Mi') }), '{"q":"2Gi"}');
});
