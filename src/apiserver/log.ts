/**
 * The server process's pino logger: JSON lines (default) or one readable line per record
 * (`--log-format text`), to stderr so stdout stays for what the command prints.
 */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export type LogFormat = 'json' | 'text';

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const OMIT = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** `2026-01-01T00:00:00.000Z INFO  message key=value ...` from one pino JSON line. */
export function formatTextLine(json: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof rec.time === 'number' ? new Date(rec.time).toISOString() : '';
  const level = (LEVEL_NAMES[Number(rec.level)] ?? String(rec.level)).padEnd(5);
  const fields = Object.entries(rec)
    .filter(([k]) => !OMIT.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return [time, level, String(rec.msg ?? ''), ...fields].join(' ').trimEnd();
}

function textDestination(out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') out.write(`${formatTextLine(line)}\n`);
      done();
    },
  });
}

export function createLogger(format: LogFormat, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  if (format === 'text') return pino({ level }, textDestination(process.stderr));
  return pino({ level }, pino.destination(2));
}
