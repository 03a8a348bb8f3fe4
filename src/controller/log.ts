/**
 * The controller process's pino logger, to stderr: JSON lines (default) or, with
 * `--log-format text`, one readable line per record: `time LEVEL message key=value …`.
 */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type { LogFormat } from './options.js';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const HIDDEN = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** Renders one pino JSON record as a text line; anything unparsable passes through. */
export function renderTextRecord(json: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const when = typeof rec.time === 'number' ? new Date(rec.time).toISOString() : '';
  const level = (LEVELS[Number(rec.level)] ?? String(rec.level)).padEnd(5);
  const fields = Object.entries(rec)
    .filter(([k]) => !HIDDEN.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`);
  return [when, level, String(rec.msg ?? ''), ...fields].join(' ').trimEnd();
}

function textStream(out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') out.write(`${renderTextRecord(line)}\n`);
      done();
    },
  });
}

/** Credentials never reach the log, whatever a caller passes in. */
const REDACT = ['token', 'password', '*.token', '*.password', 'headers.Authorization', '*.headers.Authorization'];

export function createControllerLogger(format: LogFormat, level = 'info', out: NodeJS.WritableStream = process.stderr): Logger {
  const base = { level, name: 'pv-controller', redact: REDACT };
  if (format === 'text') return pino(base, textStream(out));
  return out === process.stderr ? pino(base, pino.destination(2)) : pino(base, out);
}
