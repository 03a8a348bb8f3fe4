/**
 * The controller process's logger: the shared factory (packages/kube/src/log.ts) named `pv-controller`,
 * credentials redacted, string values with white space quoted in text lines.
 */
import type { Logger } from 'pino';
import { createLogger, formatTextLine } from '@pv-controller/kube/log.js';
import type { LogFormat } from '../options.js';

/** Renders one pino JSON record as a text line; anything unparsable passes through. */
export function renderTextRecord(json: string): string {
  return formatTextLine(json, { quoteSpacedValues: true });
}

/** Credentials never reach the log, whatever a caller passes in. */
const REDACT = ['token', 'password', '*.token', '*.password', 'headers.Authorization', '*.headers.Authorization'];

export function createControllerLogger(format: LogFormat, level = 'info', out: NodeJS.WritableStream = process.stderr): Logger {
  return createLogger(format, { level, name: 'pv-controller', redact: REDACT, out, quoteSpacedValues: true });
}
