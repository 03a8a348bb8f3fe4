/** The API server process's logger: the shared factory (packages/kube/src/log.ts) without a name or redaction. */
import type { Logger } from 'pino';
import { createLogger as createProcessLogger, formatTextLine as formatSharedTextLine, type LogFormat } from '@pv-controller/kube/log.js';

export type { LogFormat };

/** `2026-01-01T00:00:00.000Z INFO  message key=value ...` from one pino JSON line. */
export function formatTextLine(json: string): string {
  return formatSharedTextLine(json);
}

export function createLogger(format: LogFormat, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return createProcessLogger(format, { level });
}
