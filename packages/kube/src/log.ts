/**
 * The one pino logger factory of every process (API server, controller, CLI commands): JSON lines
 * (default) or, with `--log-format text`, one readable line per record
 * (`time LEVEL message key=value …`), to stderr so stdout stays for what a command prints.
 * A leaf utility: it imports nothing from src/, so apiserver/, controller/ and cli/ may all use it.
 */
import { Writable } from 'node:stream';
import { pino, type Logger, type LoggerOptions } from 'pino';

export type LogFormat = 'json' | 'text';

export interface TextLineOptions {
  /** Write string values that contain white space as JSON strings, so fields stay separable. */
  quoteSpacedValues?: boolean;
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const OMITTED_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** Renders one pino JSON record as a text line; anything unparsable passes through as it is. */
export function formatTextLine(json: string, { quoteSpacedValues = false }: TextLineOptions = {}): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof rec.time === 'number' ? new Date(rec.time).toISOString() : '';
  const level = (LEVEL_NAMES[Number(rec.level)] ?? String(rec.level)).padEnd(5);
  const asText = (v: unknown): string =>
    typeof v === 'string' && !(quoteSpacedValues && /\s/.test(v)) ? v : JSON.stringify(v);
  const fields = Object.entries(rec)
    .filter(([k]) => !OMITTED_FIELDS.has(k))
    .map(([k, v]) => `${k}=${asText(v)}`);
  return [time, level, String(rec.msg ?? ''), ...fields].join(' ').trimEnd();
}

function textDestination(out: NodeJS.WritableStream, lineOptions: TextLineOptions): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') out.write(`${formatTextLine(line, lineOptions)}\n`);
      done();
    },
  });
}

export interface CreateLoggerOptions extends TextLineOptions {
  level: string;
  /** The `name` field on every record. */
  name?: string;
  /** pino redact paths: what never reaches the log, whatever a caller passes in. */
  redact?: string[];
  /** Where lines go; stderr unless given (tests capture it). */
  out?: NodeJS.WritableStream;
}

export function createLogger(format: LogFormat, options: CreateLoggerOptions): Logger {
  const { level, name, redact, out = process.stderr, ...lineOptions } = options;
  const base: LoggerOptions = { level, ...(name !== undefined ? { name } : {}), ...(redact ? { redact } : {}) };
  if (format === 'text') return pino(base, textDestination(out, lineOptions));
  return out === process.stderr ? pino(base, pino.destination(2)) : pino(base, out);
}
