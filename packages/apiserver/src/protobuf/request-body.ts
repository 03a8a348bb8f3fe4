/**
 * Protobuf bodies other than objects: DeleteOptions, which client-go sends in its content type
 * with every typed delete.
 */
import { BadRequestError } from '@pv-controller/kube/errors.js';
import { mediaTypeOf } from '../decode/request-body.js';
import { decodeObject, PROTOBUF_MEDIA_TYPE, ProtobufDecodeError } from './envelope.js';

export function isProtobufBody(contentType: string | undefined, raw: Uint8Array): boolean {
  return raw.length > 0 && mediaTypeOf(contentType) === PROTOBUF_MEDIA_TYPE;
}

/** DeleteOptions as JSON (typeMeta dropped: the options decoder ignores it). */
export function decodeProtobufDeleteOptions(raw: Uint8Array): Record<string, unknown> {
  try {
    const { value } = decodeObject(raw, { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions' });
    delete value.apiVersion;
    delete value.kind;
    return value;
  } catch (err) {
    throw err instanceof ProtobufDecodeError ? new BadRequestError(err.message) : err;
  }
}
