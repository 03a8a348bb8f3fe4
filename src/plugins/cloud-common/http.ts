/**
 * The small `fetch` layer under the GCE and Cinder clients: JSON in and out, a typed error for
 * every non-2xx answer, and the classification of what is worth retrying.
 */
import { PluginError } from '../api/errors.js';
import type { ErrorVerdict } from './retry.js';

/** A non-2xx HTTP answer from a cloud API. `reason` is the backend's own code when it gave one. */
export class CloudHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason: string | undefined,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'CloudHttpError';
  }
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

/** Parses a JSON body; an empty or non-JSON body is `undefined`. */
async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * One HTTP exchange. Throws CloudHttpError for a non-2xx status, built by `describe` from the
 * parsed body (each API words its errors differently); network failures are thrown as fetch
 * throws them (TypeError with a cause).
 */
export async function requestJson(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: unknown; signal: AbortSignal },
  describe: (status: number, body: unknown) => { message: string; reason?: string },
): Promise<JsonResponse> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  let body: string | undefined;
  if (init.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.body);
  }
  const response = await fetch(url, { method: init.method, headers, body, signal: init.signal });
  const parsed = await readJson(response);
  if (response.status >= 200 && response.status < 300) {
    return { status: response.status, headers: response.headers, body: parsed };
  }
  const { message, reason } = describe(response.status, parsed);
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
  throw new CloudHttpError(
    response.status,
    `${init.method} ${new URL(url).pathname}: HTTP ${response.status}: ${message}`,
    reason,
    Number.isFinite(retryAfter) ? retryAfter : undefined,
  );
}

/** A connection that broke or never opened (reset, refused, closed before the answer). */
export function isNetworkError(err: unknown): boolean {
  return err instanceof TypeError && (err.message === 'fetch failed' || err.cause !== undefined);
}

/** Retry throttling (429, and the statuses listed), 5xx and broken connections. */
export function classifyHttpError(extraThrottleStatuses: number[] = []): (err: unknown) => ErrorVerdict {
  return (err) => {
    if (isNetworkError(err)) return 'retry';
    if (!(err instanceof CloudHttpError)) return 'fatal';
    if (err.status === 429 || err.status >= 500 || extraThrottleStatuses.includes(err.status)) {
      return 'retry';
    }
    return 'fatal';
  };
}

/** A plain object, or undefined (JSON boundary helper). */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A whole, non-negative count (a size in GiB): a JSON number, or the decimal string Google's APIs give for int64. */
export function asWholeNumber(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * A 2xx answer that does not say what it must (a volume without an id, a size that is no whole
 * number, a list that is no list): never read as a default, which could record a volume as ''
 * or take "no volumes" for an answer and create a duplicate. Retryable: a broken backend can mend.
 */
export function malformedAnswer(api: string, what: string): PluginError {
  return new PluginError('Backend', `${api} answered ${what}`, true);
}

/** Pages follow a marker or token; one that comes back again would page forever. */
export function requireNewPageMarker(api: string, seen: Set<string>, marker: string): void {
  if (seen.has(marker)) throw malformedAnswer(api, `the page marker ${JSON.stringify(marker)} twice`);
  seen.add(marker);
}
