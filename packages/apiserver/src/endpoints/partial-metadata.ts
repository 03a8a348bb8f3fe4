/**
 * meta.k8s.io's PartialObjectMetadata and PartialObjectMetadataList: an object's or a list's
 * metadata alone, which metadata informers (client-go's metadata client) ask for with
 * `Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`.
 */
import type { KubeObject, ObjectList } from '@pv-controller/kube/types.js';
import { NotAcceptableError } from '../api/accept.js';
import { internalPackage } from '../decode/object-decode.js';
import type { ResourceInfo } from '../resources/strategy.js';

export function partialObjectOf(obj: KubeObject, version: string): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

/**
 * The answer for a body in the partial form asked for; 406 as kube-apiserver's transform gives
 * it when a list is asked for as one object or the other way round (naming the internal Go type).
 */
export function partialAnswer(info: ResourceInfo, body: KubeObject | ObjectList, form: { version: string; list: boolean }): Record<string, unknown> {
  const isList = Array.isArray((body as ObjectList).items);
  const goType = `*${internalPackage(info.group)}.${info.kind}${isList ? 'List' : ''}`;
  if (form.list && !isList) {
    throw new NotAcceptableError(`you requested PartialObjectMetadataList, but the requested object is not a list (${goType})`);
  }
  if (!form.list && isList) {
    throw new NotAcceptableError(`you requested PartialObjectMetadata, but the requested object is a list (${goType})`);
  }
  if (!isList) return partialObjectOf(body as KubeObject, form.version);
  const list = body as ObjectList;
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: `meta.k8s.io/${form.version}`,
    metadata: list.metadata,
    items: list.items.map((item) => partialObjectOf(item, form.version)),
  };
}
