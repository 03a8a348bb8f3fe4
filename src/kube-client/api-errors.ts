/**
 * One mapping from what client-node throws to the typed errors of kube/errors.ts: an
 * `ApiException` (a non-2xx answer; its body is the Status text) becomes an `ApiError` with the
 * Status' reason, message and details; anything thrown before an answer arrived (connection
 * refused or reset, deadline, TLS, credentials plugin) becomes a `TransportError`.
 */
import { ApiException } from '@kubernetes/client-node';
import { ApiError, type StatusReason } from '@pv-controller/kube/errors.js';
import type { Status } from '@pv-controller/kube/types.js';

/** The transport broke before any HTTP status arrived (connection refused, reset, timeout). */
export class TransportError extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/** The HTTP status of a client-node failure, 0 when no answer arrived. */
export function statusOfFailure(err: unknown): number {
  return err instanceof ApiException ? (err as ApiException<unknown>).code : 0;
}

/** Maps a client-node failure of the request described by `what` to ApiError / TransportError. */
export function errorFromClientNode(err: unknown, what: string): Error {
  if (err instanceof ApiError || err instanceof TransportError) return err;
  if (err instanceof ApiException) {
    const failure = err as ApiException<unknown>;
    return apiErrorFrom(failure.code, parseBody(failure.body), what);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new TransportError(`${what}: ${message}`, err);
}

function parseBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** Turns a non-2xx response into the typed ApiError of kube/errors.ts, keeping its Status. */
export function apiErrorFrom(code: number, body: unknown, what: string): ApiError {
  const st = (typeof body === 'object' && body !== null ? body : {}) as Partial<Status>;
  const reason = (typeof st.reason === 'string' ? st.reason : reasonForCode(code)) as StatusReason;
  const message = typeof st.message === 'string' ? st.message : `${what}: HTTP ${code}`;
  const d = st.details ?? {};
  const details: ConstructorParameters<typeof ApiError>[3] = {};
  if (d.name !== undefined) details.name = d.name;
  if (d.group !== undefined) details.group = d.group;
  if (d.kind !== undefined) details.kind = d.kind;
  if (d.causes !== undefined) details.causes = d.causes;
  if (d.retryAfterSeconds !== undefined) details.retryAfterSeconds = d.retryAfterSeconds;
  return new ApiError(code, reason, message, details);
}

function reasonForCode(code: number): StatusReason {
  const byCode: Record<number, StatusReason> = {
    400: 'BadRequest',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    405: 'MethodNotAllowed',
    409: 'Conflict',
    410: 'Expired',
    413: 'RequestEntityTooLarge',
    415: 'UnsupportedMediaType',
    422: 'Invalid',
    429: 'TooManyRequests',
    503: 'ServiceUnavailable',
    504: 'Timeout',
  };
  return byCode[code] ?? 'InternalError';
}
