/**
 * metav1.Time and metav1.MicroTime as kube-apiserver decodes and re-encodes them: Go's
 * time.Parse with the RFC 3339 layouts (RFC3339 for Time, "2006-01-02T15:04:05.000000Z07:00"
 * for MicroTime), the same error texts ("parsing time "x" as "…": cannot parse "…" as "…""),
 * and the value written back in UTC (whole seconds for Time, six digits for MicroTime).
 */

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

/** One element of a Go layout: the literal before it and what it reads. */
interface LayoutElement {
  literal: string;
  std: 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'micros' | 'zone';
  text: string;
  /** Seconds followed by a fraction the layout does not name: Go accepts and reads it. */
  fractionAllowed?: boolean;
}

const ELEMENTS: Record<string, LayoutElement[]> = {
  [RFC3339]: elements(false),
  [RFC3339_MICRO]: elements(true),
};

function elements(micro: boolean): LayoutElement[] {
  return [
    { literal: '', std: 'year', text: '2006' },
    { literal: '-', std: 'month', text: '01' },
    { literal: '-', std: 'day', text: '02' },
    { literal: 'T', std: 'hour', text: '15' },
    { literal: ':', std: 'minute', text: '04' },
    { literal: ':', std: 'second', text: '05', fractionAllowed: !micro },
    ...(micro ? [{ literal: '', std: 'micros' as const, text: '.000000' }] : []),
    { literal: '', std: 'zone', text: 'Z07:00' },
  ];
}

/** Go's time.quote: ASCII kept (quotes and backslashes escaped), every other byte as \xNN. */
function timeQuote(s: string): string {
  let out = '"';
  for (const byte of Buffer.from(s, 'utf8')) {
    if (byte >= 0x80 || byte < 0x20) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    else out += byte === 0x22 || byte === 0x5c ? `\\${String.fromCharCode(byte)}` : String.fromCharCode(byte);
  }
  return `${out}"`;
}

export class GoTimeError extends Error {}

const isDigit = (s: string, i: number): boolean => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

/** getnum: one or two digits (exactly two when `fixed`). */
function getNum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : [Number(s[0]), s.slice(1)];
  return [Number(s.slice(0, 2)), s.slice(2)];
}

interface Parsed {
  fields: Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number>;
  nanos: number;
  offsetMinutes: number;
}

type StepResult = { rest: string; range?: string } | undefined;

function fractionNanos(digits: string): number {
  return Number(digits.slice(0, 9).padEnd(9, '0'));
}

/** Reads one element; undefined when the value does not fit it (Go's errBad). */
function readElement(el: LayoutElement, value: string, out: Parsed): StepResult {
  switch (el.std) {
    case 'year': {
      if (value.length < 4 || !/^\d{4}/.test(value)) return undefined;
      out.fields.year = Number(value.slice(0, 4));
      return { rest: value.slice(4) };
    }
    case 'zone':
      return readZone(value, out);
    case 'micros': {
      if (value.length < 7 || value[0] !== '.' || !/^\d{6}$/.test(value.slice(1, 7))) return undefined;
      out.nanos = fractionNanos(value.slice(1, 7));
      return { rest: value.slice(7) };
    }
    default:
      return readNumber(el, value, out);
  }
}

const LIMITS: Record<string, [number, number]> = { month: [1, 12], hour: [0, 23], minute: [0, 59], second: [0, 59] };

function readNumber(el: LayoutElement, value: string, out: Parsed): StepResult {
  const got = getNum(value, el.std !== 'hour');
  if (!got) return undefined;
  const [n, rest] = got;
  out.fields[el.std as keyof Parsed['fields']] = n;
  const limit = LIMITS[el.std];
  if (limit && (n < limit[0] || n > limit[1])) return { rest, range: el.std };
  // A fraction after the seconds is accepted even when the layout has none.
  if (el.fractionAllowed && /^[.,]\d/.test(rest)) {
    const digits = /^[.,](\d+)/.exec(rest)![1];
    out.nanos = fractionNanos(digits);
    return { rest: rest.slice(digits.length + 1) };
  }
  return { rest };
}

function readZone(value: string, out: Parsed): StepResult {
  if (value.startsWith('Z')) {
    out.offsetMinutes = 0;
    return { rest: value.slice(1) };
  }
  if (value.length < 6 || value[3] !== ':' || (value[0] !== '+' && value[0] !== '-')) return undefined;
  const hh = getNum(value.slice(1, 3), true);
  const mm = getNum(value.slice(4, 6), true);
  if (!hh || !mm) return undefined;
  if (hh[0] > 24) return { rest: value.slice(6), range: 'time zone offset hour' };
  if (mm[0] > 60) return { rest: value.slice(6), range: 'time zone offset minute' };
  out.offsetMinutes = (value[0] === '-' ? -1 : 1) * (hh[0] * 60 + mm[0]);
  return { rest: value.slice(6) };
}

function daysIn(month: number, year: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

/** Go's time.Parse for the two RFC 3339 layouts: the instant in ms plus its nanoseconds, or GoTimeError. */
export function parseGoTime(value: string, layout: typeof RFC3339 | typeof RFC3339_MICRO): { ms: number; nanos: number } {
  const out: Parsed = { fields: { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 }, nanos: -1, offsetMinutes: 0 };
  const fail = (valueElem: string, layoutElem: string): GoTimeError =>
    new GoTimeError(`parsing time ${timeQuote(value)} as ${timeQuote(layout)}: cannot parse ${timeQuote(valueElem)} as ${timeQuote(layoutElem)}`);
  let rest = value;
  for (const el of ELEMENTS[layout]) {
    if (!rest.startsWith(el.literal)) throw fail(rest, el.literal);
    rest = rest.slice(el.literal.length);
    const step = readElement(el, rest, out);
    if (!step) throw fail(rest, el.text);
    if (step.range) throw new GoTimeError(`parsing time ${timeQuote(value)}: ${step.range} out of range`);
    rest = step.rest;
  }
  if (rest !== '') throw new GoTimeError(`parsing time ${timeQuote(value)}: extra text: ${timeQuote(rest)}`);
  const f = out.fields;
  if (f.day < 1 || f.day > daysIn(f.month, f.year)) throw new GoTimeError(`parsing time ${timeQuote(value)}: day out of range`);
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: the latter reads years 0-99 as 1900-1999.
  date.setUTCFullYear(f.year, f.month - 1, f.day);
  date.setUTCHours(f.hour, f.minute, f.second, 0);
  return { ms: date.getTime() - out.offsetMinutes * 60_000, nanos: Math.max(out.nanos, 0) };
}

/** YYYY-MM-DDThh:mm:ss in UTC; Go refuses to encode years outside 0-9999. */
export function isoSeconds(ms: number): string {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  if (year < 0 || year > 9999) throw new GoTimeError('Time.MarshalJSON: year outside of range [0,9999]');
  return d.toISOString().slice(0, 19);
}

/** metav1.Time's round trip: parsed as RFC 3339, written back in UTC with whole seconds. */
export function normalizeTime(value: string): string {
  return `${isoSeconds(parseGoTime(value, RFC3339).ms)}Z`;
}

/** metav1.MicroTime's round trip: parsed with six fractional digits, written back in UTC with six. */
export function normalizeMicroTime(value: string): string {
  const { ms, nanos } = parseGoTime(value, RFC3339_MICRO);
  return `${isoSeconds(ms)}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}
