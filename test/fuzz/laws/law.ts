/**
 * The one way a law is broken: a LawViolation (the fuzzer and the property tests report it as a
 * finding). Each law module takes outside input, lets the parser refuse it with the error that
 * parser promises, and checks what it accepted; any other throw escapes as a finding too.
 */
export class LawViolation extends Error {
  constructor(law: string, detail: unknown) {
    super(`${law}: ${typeof detail === 'string' ? detail : JSON.stringify(detail, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`);
    this.name = 'LawViolation';
  }
}

export function holds(condition: boolean, law: string, detail: unknown): asserts condition {
  if (!condition) throw new LawViolation(law, detail);
}

/** Runs `parse`; an error that is an instance of one of `refusals` means "refused" (undefined). */
export function acceptedOrRefused<T>(parse: () => T, ...refusals: Array<abstract new (...args: never[]) => Error>): T | undefined {
  try {
    return parse();
  } catch (err) {
    if (refusals.some((r) => err instanceof r)) return undefined;
    throw err;
  }
}

/** Plain JSON equality (key order ignored), for values that are JSON. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : value,
  );
}
