/**
 * Serves one resource request: works out the verb from method + path shape, checks scope and
 * allowed verbs, has the body decoded (write-request.ts), calls the registry or the watch hub,
 * and writes the response.
 */
import type { ServerResponse } from 'node:http';
import { BadRequestError, MethodNotAllowedError, NotFoundError } from '@pv-controller/kube/errors.js';
import { identityOf } from '../registry/meta-rules.js';
import type { FieldRequirement } from '../api/field-selectors.js';
import type { KubeObject, ObjectList } from '@pv-controller/kube/types.js';
import { negotiateForm, type ResponseForm } from '../api/accept.js';
import { pathNotFound } from '../api/errors.js';
import { warningHeaders } from '../decode/field-validation.js';
import { sendJson, sendRawJson, type ResponseHeaders } from '../api/http-io.js';
import { memoizedJson } from './json-memo.js';
import { listOptionsFrom, withoutItemTypeMeta } from '../registry/list.js';
import { sendProtobuf } from '../protobuf/respond.js';
import { parseListQuery, queryBool } from '../api/query-params.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceStrategy } from '../resources/strategy.js';
import { storageResource, type ResourcePath } from '../api/router.js';
import { selectionFor } from '../registry/selection.js';
import { requireCollectionKey } from '../registry/storage-key.js';
import { buildTable, parseIncludeObject } from './table.js';
import { partialAnswer } from './partial-metadata.js';
import type { WatchForm } from './watch-events.js';
import type { WatchHub } from './watch.js';
import { readDeleteOptions, readObjectWrite, readPatchWrite, type WriteRequest } from './write-request.js';

interface ResourceRequest extends WriteRequest {
  res: ServerResponse;
}

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** The Kubernetes verb of a request, or undefined when the method does not fit the path. */
export function verbOf(method: string, route: ResourcePath, params: URLSearchParams): Verb | undefined {
  const item = route.name !== undefined;
  const watching = route.legacyWatch || queryBool(params, 'watch');
  switch (method) {
    case 'GET':
      if (watching) return 'watch';
      return item ? 'get' : 'list';
    case 'POST':
      return item ? undefined : 'create';
    case 'PUT':
      return item ? 'update' : undefined;
    case 'PATCH':
      return item ? 'patch' : undefined;
    case 'DELETE':
      return item ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}

/** Scope and subresource checks: 404 for paths the resource does not have, 405 for verbs. */
export function checkRoute(s: ResourceStrategy, route: ResourcePath, verb: Verb | undefined): Verb {
  const { namespaced, verbs, hasStatus } = s.info;
  if (!namespaced && route.namespace !== undefined) throw pathNotFound();
  const finalizable = s.prepareForFinalizeUpdate !== undefined;
  if (route.subresource !== undefined && !((route.subresource === 'status' && hasStatus) || (route.subresource === 'finalize' && finalizable))) {
    // kube-apiserver's custom resource handler answers a subresource it does not serve as a missing object.
    if (s.info.custom !== undefined && route.name !== undefined) throw new NotFoundError(identityOf(s.info, route.name));
    throw pathNotFound();
  }
  if (route.subresource === 'finalize' && verb !== 'update') throw new MethodNotAllowedError();
  if (verb === undefined) throw new MethodNotAllowedError();
  if (namespaced && route.namespace === undefined && verb !== 'list' && verb !== 'watch') {
    throw route.name !== undefined ? pathNotFound() : new MethodNotAllowedError();
  }
  if (route.subresource === 'status' && !['get', 'update', 'patch'].includes(verb)) throw new MethodNotAllowedError();
  if (route.subresource === undefined && !verbs.includes(verb)) throw new MethodNotAllowedError();
  // `/{resource}//status`: the route matched with an empty name, which the handler refuses.
  if (route.name === '') throw new BadRequestError('name must be provided');
  return verb;
}

/** The response form of a request; 406 before any work when its Accept header offers none we serve. */
function responseForm(r: ResourceRequest): ResponseForm {
  const collectionGet = r.req.method === 'GET' && r.route.name === undefined;
  return negotiateForm(r.req.headers.accept, collectionGet ? 'collection-get' : 'other', r.strategy.info.custom === undefined);
}

function respondObject(r: ResourceRequest, code: number, obj: KubeObject | ObjectList, warnings: string[] = []): void {
  const headers: ResponseHeaders = {};
  const form = responseForm(r);
  if (warnings.length > 0) headers.Warning = warningHeaders(warnings);
  if (form.kind === 'partial') {
    sendJson(r.res, code, partialAnswer(r.strategy.info, obj, form), headers);
    return;
  }
  if (form.kind === 'table' && (r.req.method === 'GET')) {
    const includeObject = parseIncludeObject(r.params.get('includeObject'));
    const isList = Array.isArray((obj as ObjectList).items);
    const objects = isList ? (obj as ObjectList).items : [obj as KubeObject];
    const meta = isList ? (obj as ObjectList).metadata : { resourceVersion: (obj as KubeObject).metadata.resourceVersion };
    sendJson(r.res, code, buildTable(r.strategy, objects, { version: form.version, includeObject }, meta, new Date()), headers);
    return;
  }
  const isList = Array.isArray((obj as ObjectList).items);
  const body = isList ? listBody(r.strategy, obj as ObjectList) : obj;
  if (form.kind === 'protobuf') sendProtobuf(r.res, code, body, headers);
  else if (isList) sendJson(r.res, code, body, headers);
  else sendRawJson(r.res, code, memoizedJson(obj), headers);
}

/**
 * A list as it is written: a built-in kind's items without their kind and apiVersion (Go's typed
 * lists leave them out); a custom resource's as stored, its continue always there, as an
 * UnstructuredList writes itself.
 */
function listBody(s: ResourceStrategy, list: ObjectList): ObjectList {
  if (s.info.custom === undefined) return withoutItemTypeMeta(list);
  return { ...list, metadata: { continue: '', ...list.metadata } };
}

/** The namespace a list or watch reads: an empty path segment (`/namespaces//pods`) is every namespace. */
function listNamespace(route: ResourcePath): string | undefined {
  return route.namespace === '' ? undefined : route.namespace;
}

/** A watch of one object (`/watch/.../{name}`) selects it by name, as listOpts does upstream. */
function fieldsForNamedWatch(fields: FieldRequirement[], name: string): FieldRequirement[] {
  if (fields.length === 0) return [{ field: 'metadata.name', operator: 'Equals', value: name }];
  const byName = fields.find((f) => f.field === 'metadata.name' && f.operator === 'Equals');
  if (byName?.value !== name) throw new BadRequestError("fieldSelector metadata.name doesn't match requested name");
  return fields;
}

/** Watch timeouts: 0 or absent is the server's default, negative ends at once, the rest fits a timer. */
function watchTimeoutSeconds(requested: bigint | undefined): number | undefined {
  const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);
  if (requested === undefined || requested === 0n) return undefined;
  if (requested < 0n) return 0;
  return requested > BigInt(MAX_TIMER_SECONDS) ? MAX_TIMER_SECONDS : Number(requested);
}

function serveWatch(r: ResourceRequest, hub: WatchHub): void {
  const { params, route, strategy } = r;
  const q = parseListQuery(params);
  const fields = route.name === undefined ? q.fields : fieldsForNamedWatch(q.fields, route.name);
  const selection = selectionFor(q.labels, fields, strategy, listNamespace(route));
  requireCollectionKey(strategy.info, selection.namespace);
  const accepted = responseForm(r);
  const form: WatchForm =
    accepted.kind === 'table'
      ? { kind: 'table', version: accepted.version, includeObject: parseIncludeObject(params.get('includeObject')) }
      : accepted;
  hub.serve(r.res, {
    strategy,
    resource: storageResource(strategy.info.group, strategy.info.plural),
    selection,
    resourceVersion: q.resourceVersion === '' ? undefined : q.resourceVersion,
    sendInitialEvents: q.sendInitialEvents,
    allowBookmarks: q.allowWatchBookmarks,
    timeoutSeconds: watchTimeoutSeconds(q.timeoutSeconds),
    form,
  });
}

export async function serveResource(r: ResourceRequest, verb: Verb, registry: Registry, hub: WatchHub): Promise<void> {
  const { route, params, strategy: s } = r;
  const ns = route.namespace ?? '';
  const name = route.name ?? '';
  responseForm(r);
  switch (verb) {
    case 'get':
      return respondObject(r, 200, registry.get(s, ns, name, params.get('resourceVersion') ?? ''));
    case 'list': {
      const q = parseListQuery(params);
      return respondObject(r, 200, registry.list(s, selectionFor(q.labels, q.fields, s, listNamespace(route)), listOptionsFrom(q)));
    }
    case 'watch':
      return serveWatch(r, hub);
    case 'create': {
      const { decoded, opts } = await readObjectWrite(r, 'CreateOptions');
      const out = await registry.create(s, ns, decoded, opts);
      return respondObject(r, 201, out.object, out.warnings);
    }
    case 'update': {
      const { decoded, opts } = await readObjectWrite(r, 'UpdateOptions');
      const out = await registry.update(s, ns, name, decoded, opts);
      return respondObject(r, out.created === true ? 201 : 200, out.object, out.warnings);
    }
    case 'patch': {
      const { write, opts } = await readPatchWrite(r);
      const out = 'apply' in write ? await registry.apply(s, ns, name, write.apply, opts) : await registry.patch(s, ns, name, write.patch, opts);
      return respondObject(r, out.created ? 201 : 200, out.object, out.warnings);
    }
    case 'delete': {
      const opts = await readDeleteOptions(r);
      return respondObject(r, 200, (await registry.delete(s, ns, name, opts)) as KubeObject);
    }
    case 'deletecollection': {
      const q = parseListQuery(params);
      const sel = selectionFor(q.labels, q.fields, s, route.namespace);
      const opts = await readDeleteOptions(r);
      return respondObject(r, 200, await registry.deleteCollection(s, sel, opts));
    }
  }
}
