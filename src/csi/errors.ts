/**
 * What a failed CSI call means for its caller: `CsiCallError.kind`, decided from the gRPC status
 * code alone, for every RPC alike.
 *
 * | gRPC code            | kind        | why                                                          |
 * | -------------------- | ----------- | ------------------------------------------------------------ |
 * | CANCELLED            | in-progress | we gave up waiting (abort); the driver may still be at work  |
 * | DEADLINE_EXCEEDED    | in-progress | timed out; the operation may still run or have taken effect  |
 * | UNAVAILABLE          | in-progress | connection lost or driver restarting; a call may be running  |
 * | ABORTED              | in-progress | CSI: an operation is already pending for this volume         |
 * | RESOURCE_EXHAUSTED   | in-progress | the driver (or transport) is out of resources for now        |
 * | every other code     | final       | the driver answered: it did not, and will not, do it         |
 * | no answer understood | in-progress | the driver answered but the response could not be read       |
 *
 * "in-progress" means the outcome is unknown: the caller must repeat the same call (same name,
 * same volume id) until it gets an answer before it may give up or clean up. This is
 * external-resizer's `IsFinalError` (pkg/util/util.go, v2) and the list of codes
 * external-provisioner's `checkError` (pkg/controller/controller.go, v6) answers with
 * ProvisioningInBackground, except for RESOURCE_EXHAUSTED: external-provisioner reads it on
 * CreateVolume as final (or "reschedule" when a node was selected), assuming the code is the
 * driver's "no capacity in this topology" rather than gRPC's message-size limit, a question the
 * spec leaves open (container-storage-interface/spec#419). We take the safe reading for every
 * RPC; a caller that wants to reschedule on it can test `code === status.RESOURCE_EXHAUSTED`.
 * Both sidecars treat an error that is no gRPC status as "still in progress"; here that is a
 * response that cannot be decoded or converted (reported as INTERNAL, in-progress). A request
 * that cannot be encoded is never sent: INVALID_ARGUMENT, final.
 */
import { status } from '@grpc/grpc-js';
import { CsiCallError, type CsiFailureKind } from './types.js';

const IN_PROGRESS_CODES: ReadonlySet<number> = new Set([
  status.CANCELLED,
  status.DEADLINE_EXCEEDED,
  status.UNAVAILABLE,
  status.ABORTED,
  status.RESOURCE_EXHAUSTED,
]);

/** 'in-progress' when the outcome of a call that failed with `code` is unknown, else 'final'. */
export function failureKind(code: number): CsiFailureKind {
  return IN_PROGRESS_CODES.has(code) ? 'in-progress' : 'final';
}

/** The gRPC code's name as grpc-js spells it ('INVALID_ARGUMENT'); unknown numbers as 'CODE_<n>'. */
export function codeName(code: number): string {
  return status[code] ?? `CODE_${code}`;
}

/**
 * The code's name as the CSI sidecars write it in their metrics (Go's codes.Code.String():
 * 'OK', 'InvalidArgument', 'Canceled').
 */
export function goCodeName(code: number): string {
  if (code === status.CANCELLED) return 'Canceled';
  const name = status[code];
  if (name === undefined) return `Code(${code})`;
  return name
    .toLowerCase()
    .split('_')
    .map((word) => (word === 'ok' ? 'OK' : word.charAt(0).toUpperCase() + word.slice(1)))
    .join('');
}

export function callError(method: string, code: number, details: string, kind: CsiFailureKind = failureKind(code)): CsiCallError {
  return new CsiCallError(method, code, codeName(code), kind, details);
}
