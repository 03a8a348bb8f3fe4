/**
 * Typed errors with stable reasons and HTTP codes, as kube-apiserver's Status bodies name them.
 * The API server maps them to Status bodies in one place (apiserver/errors.ts); the controller
 * recognises the same reasons in client responses (see `statusReasonOf`).
 */
import { goQuote } from './name-validation.js';
import type { Status, StatusCause } from './types.js';

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout'
  /** StatusReasonUnknown: the Status carries no reason (a plain error from deep in the server). */
  | '';

export interface ResourceIdentity {
  /** API group ("" for core). */
  group?: string;
  /** Plural resource name, e.g. "persistentvolumes" (kube-apiserver puts it in details.kind). */
  kind?: string;
  name?: string;
}

/**
 * Base class: an error that has a Kubernetes Status representation. `details` is sent when it
 * names something; `showEmptyDetails` sends `"details": {}` anyway, as upstream's errors that
 * always carry a StatusDetails do (a path not found, a generic 422).
 */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details: ResourceIdentity & { causes?: StatusCause[]; retryAfterSeconds?: number } = {},
    readonly showEmptyDetails = false,
  ) {
    super(message);
    this.name = new.target.name;
  }

  toStatus(): Status {
    const details: NonNullable<Status['details']> = {};
    if (this.details.name !== undefined) details.name = this.details.name;
    if (this.details.group !== undefined) details.group = this.details.group;
    if (this.details.kind !== undefined) details.kind = this.details.kind;
    if (this.details.causes !== undefined) details.causes = this.details.causes;
    if (this.details.retryAfterSeconds !== undefined) {
      details.retryAfterSeconds = this.details.retryAfterSeconds;
    }
    // Keys in the order kube-apiserver writes them.
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      ...(this.reason !== '' ? { reason: this.reason } : {}),
      ...(this.showEmptyDetails || Object.keys(details).length > 0 ? { details } : {}),
      code: this.code,
    };
  }
}

function qualified(id: ResourceIdentity): string {
  const kind = id.kind ?? 'object';
  return id.group ? `${kind}.${id.group}` : kind;
}

export class NotFoundError extends ApiError {
  constructor(id: ResourceIdentity, message?: string) {
    super(404, 'NotFound', message ?? `${qualified(id)} ${goQuote(id.name ?? '')} not found`, id, true);
  }
}

export class AlreadyExistsError extends ApiError {
  constructor(id: ResourceIdentity) {
    super(409, 'AlreadyExists', `${qualified(id)} "${id.name ?? ''}" already exists`, id);
  }
}

export class ConflictError extends ApiError {
  constructor(id: ResourceIdentity, message?: string) {
    super(
      409,
      'Conflict',
      message ??
        `Operation cannot be fulfilled on ${qualified(id)} "${id.name ?? ''}": ` +
          'the object has been modified; please apply your changes to the latest version and try again',
      id,
    );
  }
}

/**
 * How much text (fields and messages) the causes of one 422 carry. kube-apiserver lists every
 * distinct cause whole; past this budget the rest are counted in one closing cause instead (only
 * many distinct errors reach it: 100,000 bad finalizer names, say). The first cause is always kept.
 */
export const INVALID_CAUSES_TEXT_BUDGET = 1024 * 1024;

const causeText = (c: StatusCause): string => (c.field ? `${c.field}: ${c.message ?? ''}` : (c.message ?? ''));

/**
 * Each distinct cause once, in first-seen order, as kube-apiserver's declarative-validation step
 * leaves them (field.ErrorList.Filter goes through ToAggregate, which drops repeated texts: a
 * million empty access modes are one cause there), as long as they fit
 * INVALID_CAUSES_TEXT_BUDGET; the rest are counted in one closing cause without being compared
 * (comparing 3,699 errors that each print a list of 3,700 owner references reads ~0.9 GB).
 */
function distinctCausesWithinBudget(causes: StatusCause[]): StatusCause[] {
  const seen = new Set<string>();
  const out: StatusCause[] = [];
  let used = 0;
  let omitted = 0;
  for (const c of causes) {
    if (out.length > 0 && used > INVALID_CAUSES_TEXT_BUDGET) {
      omitted++;
      continue;
    }
    const text = causeText(c);
    if (seen.has(text)) continue;
    seen.add(text);
    out.push(c);
    used += text.length;
  }
  if (omitted > 0) out.push({ message: `${omitted} more error${omitted === 1 ? '' : 's'} not listed: the list exceeds ${INVALID_CAUSES_TEXT_BUDGET} bytes` });
  return out;
}

/** The aggregate's text: "field: message", bracketed when there is more than one. */
function aggregateText(causes: StatusCause[]): string {
  const list = causes.map(causeText);
  return list.length === 1 ? list[0] : `[${list.join(', ')}]`;
}

/** 422 with causes. `kind` here is the Kind (e.g. "PersistentVolume"), as upstream. */
export class InvalidError extends ApiError {
  readonly causes: StatusCause[];

  constructor(id: { kind: string; group?: string; name?: string }, causes: StatusCause[]) {
    const kept = distinctCausesWithinBudget(causes);
    super(422, 'Invalid', `${id.kind} "${id.name ?? ''}" is invalid: ${aggregateText(kept)}`, { ...id, causes: kept });
    this.causes = kept;
  }
}

export class BadRequestError extends ApiError {
  constructor(message: string) {
    super(400, 'BadRequest', message);
  }
}

/** A watch or list from a resourceVersion older than the retained history. */
export class ExpiredError extends ApiError {
  constructor(requested: number, oldest: number) {
    super(410, 'Expired', `too old resource version: ${requested} (${oldest})`);
  }
}

export class UnauthorizedError extends ApiError {
  constructor() {
    super(401, 'Unauthorized', 'Unauthorized');
  }
}

/** go-restful's answer when no route takes the method: it names neither method nor resource. */
export class MethodNotAllowedError extends ApiError {
  constructor() {
    super(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}, true);
  }
}

/** A PATCH of a media type no patch handler takes: kube-apiserver's generic 415, with empty details. */
export class UnsupportedMediaTypeError extends ApiError {
  constructor() {
    super(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {}, true);
  }
}

export class RequestEntityTooLargeError extends ApiError {
  constructor(limit: number) {
    super(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
  }
}

/** NewInternalError: the message, and the same text as the one cause. */
export class InternalError extends ApiError {
  constructor(message: string) {
    super(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
  }
}

/** A 500 without a reason: what kube-apiserver answers when storage refuses a request's key or resourceVersion. */
export class UnknownServerError extends ApiError {
  constructor(message: string) {
    super(500, '', message);
  }
}

/**
 * Reads the Status reason/code out of anything a client call threw: our own ApiError, or
 * client-node's ApiException (which carries `code` and a JSON `body`).
 */
export function statusOf(err: unknown): { code?: number; reason?: string } {
  if (err instanceof ApiError) return { code: err.code, reason: err.reason };
  if (typeof err !== 'object' || err === null) return {};
  const e = err as { code?: unknown; body?: unknown; statusCode?: unknown };
  const code = typeof e.code === 'number' ? e.code : typeof e.statusCode === 'number' ? e.statusCode : undefined;
  let reason: string | undefined;
  let body: unknown = e.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      body = undefined;
    }
  }
  if (typeof body === 'object' && body !== null && typeof (body as Status).reason === 'string') {
    reason = (body as Status).reason;
  }
  return code === undefined ? (reason === undefined ? {} : { reason }) : { code, reason };
}

export const isNotFound = (err: unknown): boolean => statusOf(err).code === 404;
export const isConflict = (err: unknown): boolean => {
  const s = statusOf(err);
  return s.code === 409 && s.reason !== 'AlreadyExists';
};
export const isAlreadyExists = (err: unknown): boolean => statusOf(err).reason === 'AlreadyExists';
