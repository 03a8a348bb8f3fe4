/**
 * The registry's writes as the endpoint layer makes them of request bodies (write-request.ts):
 * a create or update body decoded into the resource's kind, a patch body against the stored object.
 */
import type { FieldValidation } from '@pv-controller/apiserver/api/query-params.js';
import { decodeObject } from '@pv-controller/apiserver/decode/object-decode.js';
import type { Registry, WriteOptions, WriteOutcome } from '@pv-controller/apiserver/registry/registry.js';
import type { ResourceStrategy } from '@pv-controller/apiserver/resources/strategy.js';
import { patcherFor } from '@pv-controller/apiserver/endpoints/write-request.js';

type RequestOptions = WriteOptions & { fieldValidation?: FieldValidation };

export async function create(reg: Registry, s: ResourceStrategy, namespace: string, body: unknown, opts: RequestOptions = {}): Promise<WriteOutcome> {
  return await reg.create(s, namespace, decodeObject(s.info, body, namespace, opts.fieldValidation ?? 'Warn'), opts);
}

export async function update(reg: Registry, s: ResourceStrategy, namespace: string, name: string, body: unknown, opts: RequestOptions = {}): Promise<WriteOutcome> {
  return await reg.update(s, namespace, name, decodeObject(s.info, body, namespace, opts.fieldValidation ?? 'Warn'), opts);
}

export async function patch(
  reg: Registry,
  s: ResourceStrategy,
  namespace: string,
  name: string,
  contentType: string,
  body: unknown,
  opts: RequestOptions = {},
): Promise<WriteOutcome> {
  return await reg.patch(s, namespace, name, patcherFor(s, namespace, name, contentType, body, opts.fieldValidation), opts);
}
