/**
 * Kubernetes resource.Quantity (k8s.io/apimachinery/pkg/api/resource), exact with BigInt.
 *
 * A quantity is held as an integer number of nano-units: parsing rounds any finer precision
 * up (away from zero), exactly as apimachinery does, so every value is representable.
 * Grammar: `<sign>? <digits>? (. <digits>?)? <suffix>` where the suffix is a binary SI one
 * (Ki..Ei), a decimal SI one (n u m "" k M G T P E) or an exponent (e|E followed by an int).
 */

export type QuantityFormat = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

export class QuantityParseError extends Error {
  constructor(
    readonly input: string,
    detail = 'quantities must match the regular expression ' +
      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  ) {
    super(detail);
    this.name = 'QuantityParseError';
  }
}

const NANO = 1_000_000_000n;
const INT64_MAX = 9223372036854775807n;
const INT32_MAX = 2147483647n;

const DECIMAL_SUFFIXES: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const DECIMAL_SUFFIX_BY_EXPONENT = new Map<number, string>(
  Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]),
);
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

interface Suffix {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

function interpretSuffix(suffix: string): Suffix | undefined {
  if (Object.hasOwn(DECIMAL_SUFFIXES, suffix)) {
    return { base: 10, exponent: DECIMAL_SUFFIXES[suffix], format: 'DecimalSI' };
  }
  const binary = BINARY_SUFFIXES.indexOf(suffix);
  if (binary > 0) return { base: 2, exponent: binary * 10, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const exp = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(exp)) return undefined;
    const n = BigInt(exp);
    // apimachinery keeps the exponent in an int32 scale that it negates: ±MaxInt32 only.
    if (n > INT32_MAX || n < -INT32_MAX) return undefined;
    return { base: 10, exponent: Number(n), format: 'DecimalExponent' };
  }
  return undefined;
}

interface NumberParts {
  negative: boolean;
  whole: string;
  fraction: string;
  suffix: string;
}

const QUANTITY_SHAPE = /^([+-]?)([0-9]*)(?:\.([0-9]*))?((?:[eEinumkKMGTP]*)(?:[+-]?[0-9]+)?)$/;

/** Splits the string like apimachinery's parseQuantityString (which accepts "1.", "." and ".5"). */
function splitQuantity(s: string): NumberParts {
  const m = QUANTITY_SHAPE.exec(s);
  if (!m) throw new QuantityParseError(s);
  return { negative: m[1] === '-', whole: m[2] || '0', fraction: m[3] ?? '', suffix: m[4] };
}

/** ceil(|n| / d) with the sign of n (rounds away from zero). */
function divideAwayFromZero(n: bigint, d: bigint): bigint {
  const q = n / d;
  return n % d === 0n ? q : n < 0n ? q - 1n : q + 1n;
}

/**
 * The largest number of integer digits a decimal quantity may have. apimachinery has no bound
 * below an int32 exponent (kube-apiserver answers `1e2147483647` with a 504 after computing for
 * its whole request timeout); this one is far above any real size, and it bounds the value, not
 * the written exponent, so the canonical form of every accepted quantity parses again.
 */
const MAX_DECIMAL_DIGITS = 1000;

/** The decimal order of `whole.fraction × 10^exponent`: the value is below 10^order, and at least 10^(order-1). */
function decimalOrder(parts: NumberParts, exponent: number): number {
  const whole = parts.whole.replace(/^0+/, '');
  if (whole !== '') return whole.length + exponent;
  const leadingZeros = /^0*/.exec(parts.fraction)![0].length;
  return exponent - leadingZeros;
}

/** The magnitude (as nanos, rounded up) of `whole.fraction × base^exponent`. */
function magnitudeInNanos(parts: NumberParts, sfx: Suffix): bigint {
  if (/^0*$/.test(parts.whole) && /^0*$/.test(parts.fraction)) return 0n;
  if (sfx.base === 10) {
    const order = decimalOrder(parts, sfx.exponent);
    if (order > MAX_DECIMAL_DIGITS) throw new QuantityParseError(parts.suffix, 'quantity too large');
    // Below 10^-9 the value rounds up to one nano-unit.
    if (order < -9) return 1n;
  }
  let numerator = BigInt(parts.whole + parts.fraction) * NANO;
  let denominator = 10n ** BigInt(parts.fraction.length);
  if (sfx.base === 2) {
    numerator *= 1n << BigInt(sfx.exponent);
  } else if (sfx.exponent >= 0) {
    numerator *= 10n ** BigInt(sfx.exponent);
  } else {
    denominator *= 10n ** BigInt(-sfx.exponent);
  }
  return divideAwayFromZero(numerator, denominator);
}

export class Quantity {
  constructor(
    /** The value in nano-units (10^-9). */
    readonly nanos: bigint,
    readonly format: QuantityFormat,
  ) {}

  static parse(s: string): Quantity {
    if (s.length === 0) throw new QuantityParseError(s, 'quantities must match the regular expression');
    const parts = splitQuantity(s);
    const sfx = interpretSuffix(parts.suffix);
    if (!sfx) throw new QuantityParseError(s, 'unable to parse quantity\'s suffix');
    let magnitude = magnitudeInNanos(parts, sfx);
    let format = sfx.format;
    if (format === 'BinarySI') {
      // apimachinery caps binary quantities at the largest int64.
      if (magnitude > INT64_MAX * NANO) magnitude = INT64_MAX * NANO;
      if (magnitude > 0n && magnitude < NANO) format = 'DecimalSI';
    }
    return new Quantity(parts.negative ? -magnitude : magnitude, format);
  }

  static fromBytes(bytes: bigint, format: QuantityFormat = 'BinarySI'): Quantity {
    return new Quantity(bytes * NANO, format);
  }

  /** Value in whole units, rounded up (away from zero), like Quantity.Value(). */
  toBytes(): bigint {
    return divideAwayFromZero(this.nanos, NANO);
  }

  cmp(o: Quantity): -1 | 0 | 1 {
    return this.nanos < o.nanos ? -1 : this.nanos > o.nanos ? 1 : 0;
  }

  isZero(): boolean {
    return this.nanos === 0n;
  }

  sign(): -1 | 0 | 1 {
    return this.nanos < 0n ? -1 : this.nanos > 0n ? 1 : 0;
  }

  /** Canonical form, as apimachinery serialises it: "10Gi", "1500M", "100m", "1e3". */
  toString(): string {
    if (this.nanos === 0n) return '0';
    const sign = this.nanos < 0n ? '-' : '';
    const abs = this.nanos < 0n ? -this.nanos : this.nanos;
    let format = this.format;
    if (format === 'BinarySI' && (abs < 1024n * NANO || abs % NANO !== 0n)) format = 'DecimalSI';
    if (format === 'BinarySI') {
      const binary = canonicalBinary(abs / NANO);
      if (binary !== undefined) return sign + binary;
      format = 'DecimalExponent';
    }
    return sign + canonicalDecimal(abs, format);
  }

  toJSON(): string {
    return this.toString();
  }
}

function canonicalBinary(units: bigint): string | undefined {
  let mantissa = units;
  let power = 0;
  while (mantissa % 1024n === 0n) {
    mantissa /= 1024n;
    power++;
  }
  if (power >= BINARY_SUFFIXES.length) return undefined;
  return `${mantissa}${BINARY_SUFFIXES[power]}`;
}

/** Mantissa × 10^exponent with the exponent a multiple of 3, as large as keeps the mantissa whole. */
function canonicalDecimal(absNanos: bigint, format: QuantityFormat): string {
  let mantissa = absNanos;
  let exponent = -9;
  while (mantissa % 1000n === 0n) {
    mantissa /= 1000n;
    exponent += 3;
  }
  if (format === 'DecimalSI') {
    const suffix = DECIMAL_SUFFIX_BY_EXPONENT.get(exponent);
    if (suffix !== undefined) return `${mantissa}${suffix}`;
  }
  return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
}

export function parseQuantity(s: string): Quantity {
  return Quantity.parse(s);
}

export function isValidQuantity(s: string): boolean {
  try {
    Quantity.parse(s);
    return true;
  } catch {
    return false;
  }
}

export function compareQuantityStrings(a: string, b: string): -1 | 0 | 1 {
  return Quantity.parse(a).cmp(Quantity.parse(b));
}

/** Whole units (bytes for storage), rounded up. Throws QuantityParseError. */
export function quantityToBytes(s: string): bigint {
  return Quantity.parse(s).toBytes();
}

/** Canonical quantity string for a byte count: 1073741824n ⇒ "1Gi" (binary) / "1073741824" (decimal). */
export function formatBytes(bytes: bigint, binary = true): string {
  return Quantity.fromBytes(bytes, binary ? 'BinarySI' : 'DecimalSI').toString();
}
