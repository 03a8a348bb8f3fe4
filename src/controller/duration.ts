/** Go `time.ParseDuration` syntax ("15s", "10m", "1h30m", "1.5h", "300ms", "0"), in milliseconds. */
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  'μs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

export class DurationError extends Error {
  constructor(text: string) {
    super(`invalid duration "${text}" (use Go syntax such as 15s, 10m, 1h30m)`);
    this.name = 'DurationError';
  }
}

export function parseDuration(text: string): number {
  const s = text.trim();
  if (s === '0') return 0;
  const m = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(s);
  if (!m) throw new DurationError(text);
  let total = 0;
  for (const part of s.slice(m[1].length).matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(part[1]) * UNIT_MS[part[2]];
  }
  return m[1] === '-' ? -total : total;
}

const DAY_MS = 86_400_000;

/**
 * A non-negative age: Go syntax with whole days in front (`7d`, `1d12h`, `36h`, `90m`, `0`), as
 * `usage --unused --for` takes it. Throws DurationError.
 */
export function parseAge(text: string): number {
  const m = /^(\d+)d(.*)$/.exec(text.trim());
  const rest = m?.[2] ?? '';
  if (/^[+-]/.test(rest)) throw new DurationError(text);
  const ms = m ? Number(m[1]) * DAY_MS + (rest === '' ? 0 : parseDuration(rest)) : parseDuration(text);
  if (!(ms >= 0) || !Number.isSafeInteger(Math.round(ms))) throw new DurationError(text);
  return ms;
}

/** Formats milliseconds the way Go prints a duration (for --help defaults and logs). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s}s`;
}
