/**
 * The API faults the chaos proxy injects, which requests each applies to, and the answer each
 * gets: kube-apiserver's Status body and headers for that code (409 Conflict on an update, 429
 * with Retry-After, 500 InternalError, 503 ServiceUnavailable, and the 410 Expired ERROR event
 * a watch from a compacted resourceVersion receives).
 */
import { ApiError, ConflictError, ExpiredError, InternalError } from '@pv-controller/kube/errors.js';

export const API_FAULT_KINDS = [
  /** 409 Conflict on an update (someone else wrote first). */
  'conflict',
  /** 429 TooManyRequests with Retry-After: 1. */
  'throttle',
  /** 500 InternalError, the request not applied. */
  'serverError',
  /** 503 ServiceUnavailable. */
  'unavailable',
  /** The connection reset before the request reaches the server. */
  'reset',
  /** The request applied, then the connection reset before the answer (a write of unknown outcome). */
  'lostAnswer',
  /** No answer at all: the client's own timeout must fire. */
  'timeout',
  /** Forwarded after 0.2–1.5 s. */
  'slow',
  /** A watch stream cut in the middle of an event. */
  'watchCut',
  /** A watch from a resourceVersion answered with 410 Expired (the client must re-list). */
  'watchExpired',
] as const;

export type ApiFaultKind = (typeof API_FAULT_KINDS)[number];

export interface ProxiedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  watch: boolean;
}

export interface FaultAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function isWatch(url: URL): boolean {
  const watch = url.searchParams.get('watch');
  return watch === 'true' || watch === '1' || /\/watch\//.test(url.pathname);
}

/** The faults that make sense for `r`: a watch is cut or expired, a GET never gets a 409, ... */
export function applicableFaults(r: ProxiedRequest): ApiFaultKind[] {
  if (r.watch) {
    const fromVersion = (r.query.get('resourceVersion') ?? '') !== '' && r.query.get('resourceVersion') !== '0';
    return ['watchCut', ...(fromVersion ? (['watchExpired'] as const) : []), 'reset', 'throttle', 'serverError', 'unavailable'];
  }
  const common: ApiFaultKind[] = ['throttle', 'serverError', 'unavailable', 'reset', 'timeout', 'slow'];
  if (r.method === 'GET') return common;
  return [...common, 'lostAnswer', ...(r.method === 'PUT' || r.method === 'PATCH' ? (['conflict'] as const) : [])];
}

/** `{ group, kind: plural resource, name }` of a request path, as kube-apiserver's details name them. */
export function resourceOfPath(path: string): { group?: string; kind: string; name?: string } {
  const parts = path.split('/').filter((p) => p !== '');
  const rest = parts[0] === 'api' ? parts.slice(2) : parts.slice(3);
  // The core group is named by no `group` at all in kube-apiserver's details.
  const group = parts[0] === 'api' ? undefined : parts[1];
  const scoped = rest[0] === 'namespaces' && rest.length > 2 ? rest.slice(2) : rest;
  return { ...(group ? { group } : {}), kind: scoped[0] ?? '', ...(scoped[1] !== undefined ? { name: decodeURIComponent(scoped[1]) } : {}) };
}

function statusAnswer(err: ApiError, headers: Record<string, string> = {}): FaultAnswer {
  return { status: err.code, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(err.toStatus()) };
}

/** The answer to a request that suffers `kind` (the kinds answered without forwarding). */
export function faultAnswer(kind: ApiFaultKind, r: ProxiedRequest): FaultAnswer {
  switch (kind) {
    case 'conflict':
      return statusAnswer(new ConflictError(resourceOfPath(r.path)));
    case 'throttle':
      return statusAnswer(new ApiError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 1 }), { 'retry-after': '1' });
    case 'serverError':
      return statusAnswer(new InternalError('injected by the chaos proxy'));
    case 'unavailable':
      return statusAnswer(new ApiError(503, 'ServiceUnavailable', 'the server is currently unable to handle the request'));
    case 'watchExpired': {
      const requested = Number(r.query.get('resourceVersion') ?? '0');
      const event = { type: 'ERROR', object: new ExpiredError(requested, requested + 1).toStatus() };
      return { status: 200, headers: { 'content-type': 'application/json' }, body: `${JSON.stringify(event)}\n` };
    }
    default:
      throw new Error(`fault ${kind} is not answered by a Status`);
  }
}
