/**
 * Serves one resource request: works out the verb from method + path shape, checks scope and
 * allowed verbs, reads the body, calls the registry or the watch hub, and writes the response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BadRequestError, MethodNotAllowedError } from '../kube/errors.js';
import type { KubeObject, ObjectList } from '../kube/types.js';
import { negotiateForm } from './accept.js';
import { objectBodyFormat, parseRequestBody } from './decode/request-body.js';
import { schemaForKind } from './decode/schema.js';
import { decodeTyped, DecodeError } from './decode/typed-decoder.js';
import { parseDeleteOptions } from './deletion.js';
import { pathNotFound } from './errors.js';
import { parseFieldValidation, warningHeaders } from './field-validation.js';
import { queryFlag, readBody, sendJson, sendRawJson, type ResponseHeaders } from './http-io.js';
import { memoizedJson } from './json-memo.js';
import { parseListOptions } from './list.js';
import type { Registry, WriteOptions } from './registry.js';
import type { ResourceStrategy } from './resources/strategy.js';
import { storageResource, type ResourcePath } from './router.js';
import { parseSelection } from './selection.js';
import { buildTable, parseIncludeObject } from './table.js';
import type { WatchForm } from './watch-events.js';
import type { WatchHub } from './watch.js';

export interface ResourceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  params: URLSearchParams;
  route: ResourcePath;
  strategy: ResourceStrategy;
}

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** The Kubernetes verb of a request, or undefined when the method does not fit the path. */
export function verbOf(method: string, route: ResourcePath, params: URLSearchParams): Verb | undefined {
  const item = route.name !== undefined;
  const watching = route.legacyWatch || queryFlag(params, 'watch');
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
export function checkRoute(s: ResourceStrategy, route: ResourcePath, verb: Verb | undefined, method: string): Verb {
  const { namespaced, verbs, hasStatus } = s.info;
  if (!namespaced && route.namespace !== undefined) throw pathNotFound();
  if (route.subresource !== undefined && (route.subresource !== 'status' || !hasStatus)) throw pathNotFound();
  if (verb === undefined) throw new MethodNotAllowedError(method);
  if (namespaced && route.namespace === undefined && verb !== 'list' && verb !== 'watch') {
    throw route.name !== undefined ? pathNotFound() : new MethodNotAllowedError(method);
  }
  if (route.subresource === 'status' && !['get', 'update', 'patch'].includes(verb)) throw new MethodNotAllowedError(method);
  if (route.subresource === undefined && !verbs.includes(verb)) throw new MethodNotAllowedError(method);
  return verb;
}

function writeOptions(params: URLSearchParams, route: ResourcePath): WriteOptions {
  return {
    subresource: route.subresource,
    dryRun: params.getAll('dryRun').includes('All'),
    fieldValidation: parseFieldValidation(params.get('fieldValidation')),
  };
}

function respondObject(r: ResourceRequest, code: number, obj: KubeObject | ObjectList, warnings: string[] = []): void {
  const headers: ResponseHeaders = {};
  const form = negotiateForm(r.req.headers.accept);
  if (warnings.length > 0) headers.Warning = warningHeaders(warnings);
  if (form.kind === 'table' && (r.req.method === 'GET')) {
    const includeObject = parseIncludeObject(r.params.get('includeObject'));
    const isList = Array.isArray((obj as ObjectList).items);
    const objects = isList ? (obj as ObjectList).items : [obj as KubeObject];
    const meta = isList ? (obj as ObjectList).metadata : { resourceVersion: (obj as KubeObject).metadata.resourceVersion };
    sendJson(r.res, code, buildTable(r.strategy, objects, { version: form.version, includeObject }, meta, new Date()), headers);
    return;
  }
  if (Array.isArray((obj as ObjectList).items)) sendJson(r.res, code, obj, headers);
  else sendRawJson(r.res, code, memoizedJson(obj), headers);
}

/** A create/update body, JSON or YAML by Content-Type (415 for anything else). */
async function readObjectBody(r: ResourceRequest): Promise<unknown> {
  const format = objectBodyFormat(r.req.headers['content-type']);
  return parseRequestBody(await readBody(r.req), { role: 'object', kind: r.strategy.info.kind }, format);
}

/** DeleteOptions from the body, typed as kube-apiserver decodes them (unknown fields ignored). */
async function readDeleteOptionsBody(r: ResourceRequest): Promise<Record<string, unknown> | undefined> {
  const body = parseRequestBody(await readBody(r.req), { role: 'options' });
  if (body === undefined) return undefined;
  try {
    return decodeTyped(body as Record<string, unknown>, schemaForKind('', 'v1', 'DeleteOptions')).value;
  } catch (err) {
    throw err instanceof DecodeError ? new BadRequestError(err.message) : err;
  }
}

function serveWatch(r: ResourceRequest, hub: WatchHub): void {
  const { params, route, strategy } = r;
  const selection = parseSelection(params, strategy, route.namespace);
  if (route.name !== undefined) {
    // Legacy `/watch/.../{name}`: a watch of that one object.
    const byName = new URLSearchParams(params);
    byName.set('fieldSelector', [params.get('fieldSelector'), `metadata.name=${route.name}`].filter(Boolean).join(','));
    selection.fields = parseSelection(byName, strategy, route.namespace).fields;
  }
  const accepted = negotiateForm(r.req.headers.accept);
  const form: WatchForm =
    accepted.kind === 'table'
      ? { kind: 'table', version: accepted.version, includeObject: parseIncludeObject(params.get('includeObject')) }
      : { kind: 'json' };
  const timeout = params.get('timeoutSeconds');
  const sendInitial = params.get('sendInitialEvents');
  hub.serve(r.res, {
    strategy,
    resource: storageResource(strategy.info.group, strategy.info.plural),
    selection,
    resourceVersion: params.get('resourceVersion') ?? undefined,
    sendInitialEvents: sendInitial === null ? undefined : sendInitial === 'true',
    allowBookmarks: queryFlag(params, 'allowWatchBookmarks'),
    timeoutSeconds: timeout !== null && Number(timeout) > 0 ? Number(timeout) : undefined,
    form,
  });
}

export async function serveResource(r: ResourceRequest, verb: Verb, registry: Registry, hub: WatchHub): Promise<void> {
  const { route, params, strategy: s } = r;
  const ns = route.namespace ?? '';
  const name = route.name ?? '';
  switch (verb) {
    case 'get':
      return respondObject(r, 200, registry.get(s, ns, name));
    case 'list':
      return respondObject(r, 200, registry.list(s, parseSelection(params, s, route.namespace), parseListOptions(params)));
    case 'watch':
      return serveWatch(r, hub);
    case 'create': {
      const out = await registry.create(s, ns, await readObjectBody(r), writeOptions(params, route));
      return respondObject(r, 201, out.object, out.warnings);
    }
    case 'update': {
      const out = await registry.update(s, ns, name, await readObjectBody(r), writeOptions(params, route));
      return respondObject(r, 200, out.object, out.warnings);
    }
    case 'patch': {
      // Raw bytes: the patch type decides how they are read (415 before any parsing).
      const body = await readBody(r.req);
      const out = await registry.patch(s, ns, name, r.req.headers['content-type'] ?? '', body, writeOptions(params, route));
      return respondObject(r, 200, out.object, out.warnings);
    }
    case 'delete': {
      const opts = parseDeleteOptions(await readDeleteOptionsBody(r), params);
      return respondObject(r, 200, await registry.delete(s, ns, name, opts));
    }
    case 'deletecollection': {
      const opts = parseDeleteOptions(await readDeleteOptionsBody(r), params);
      const sel = parseSelection(params, s, route.namespace);
      return respondObject(r, 200, await registry.deleteCollection(s, sel, opts));
    }
  }
}
