/**
 * The one place where anything thrown while serving a request becomes a Status response:
 * an ApiError keeps its code and body; anything else is a 500 InternalError, logged with its
 * stack (the client only sees the message).
 */
import type { Logger } from 'pino';
import { ApiError, InternalError, InvalidError, NotFoundError } from '@pv-controller/kube/errors.js';
import type { Status, StatusCause } from '@pv-controller/kube/types.js';

interface StatusResponse {
  code: number;
  body: Status;
}

/** How much of an unexpected error's message a 500 repeats (twice: message and cause). */
const MAX_INTERNAL_MESSAGE = 4096;

export function statusResponseFor(err: unknown, log: Logger): StatusResponse {
  if (err instanceof ApiError) return { code: err.code, body: err.toStatus() };
  const message = err instanceof Error ? err.message : String(err);
  log.error({ err }, 'internal error while serving a request');
  const internal = new InternalError(message.length > MAX_INTERNAL_MESSAGE ? `${message.slice(0, MAX_INTERNAL_MESSAGE)}...` : message);
  return { code: internal.code, body: internal.toStatus() };
}

/** The 404 kube-apiserver gives for a path it does not serve. */
export function pathNotFound(): NotFoundError {
  return new NotFoundError({}, 'the server could not find the requested resource');
}

/**
 * 422 whose message names the qualified kind ("StorageClass.storage.k8s.io ... is invalid") while
 * details keep Kind and group apart, as upstream.
 */
export class QualifiedInvalidError extends InvalidError {
  constructor(id: { kind: string; group: string; name?: string }, causes: StatusCause[]) {
    super(id.group ? id : { kind: id.kind, name: id.name }, causes);
    if (id.group) this.message = `${id.kind}.${id.group}${this.message.slice(id.kind.length)}`;
  }
}
