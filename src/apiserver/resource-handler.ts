/**
 * Serves one resource request: works out the verb from method + path shape, checks scope and
 * allowed verbs, reads the body, calls the registry or the watch hub, and writes the response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MethodNotAllowedError } from '../kube/errors.js';
import type { KubeObject, ObjectList } from '../kube/types.js';
import { negotiateForm } from './accept.js';
import { parseDeleteOptions } from './deletion.js';
import { pathNotFound } from './errors.js';
import { parseFieldValidation, warningHeaders } from './field-validation.js';
import { parseJsonBody, queryFlag, readBody, requireJsonContentType, sendJson, sendRawJson } from './http-io.js';
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
  if (verb === undefined) throw new MethodNotAllowedError();
  if (namespaced && route.namespace === undefined && verb !== 'list' && verb !== 'watch') {
    throw route.name !== undefined ? pathNotFound() : new MethodNotAllowedError();
  }
  if (route.subresource === 'status' && !['get', 'update', 'patch'].includes(verb)) throw new MethodNotAllowedError();
  if (route.subresource === undefined && !verbs.includes(verb)) throw new MethodNotAllowedError();
  return verb;
}

function writeOptions(params: URLSearchParams, route: ResourcePath): WriteOptions {
  return {
    subresource: route.subresource,
    dryRun: params.getAll('dryRun').includes('All'),
    fieldValidation: parseFieldValidation(params.get('fieldValidation')),
    // readJson's result: parsed for this request alone.
    bodyIsPrivate: true,
  };
}

function respondObject(r: ResourceRequest, code: number, obj: KubeObject | ObjectList, warnings: string[] = []): void {
  const headers: Record<string, string> = {};
  const form = negotiateForm(r.req.headers.accept);
  if (warnings.length > 0) r.res.setHeader('Warning', warningHeaders(warnings));
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

async function readJson(r: ResourceRequest, requireJson: boolean): Promise<unknown> {
  if (requireJson) requireJsonContentType(r.req.headers['content-type']);
  return parseJsonBody(await readBody(r.req));
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
      const out = await registry.create(s, ns, await readJson(r, true), writeOptions(params, route));
      return respondObject(r, 201, out.object, out.warnings);
    }
    case 'update': {
      const out = await registry.update(s, ns, name, await readJson(r, true), writeOptions(params, route));
      return respondObject(r, 200, out.object, out.warnings);
    }
    case 'patch': {
      const body = await readJson(r, false);
      const out = await registry.patch(s, ns, name, r.req.headers['content-type'] ?? '', body, writeOptions(params, route));
      return respondObject(r, 200, out.object, out.warnings);
    }
    case 'delete': {
      const opts = parseDeleteOptions(await readJson(r, false), params);
      return respondObject(r, 200, await registry.delete(s, ns, name, opts));
    }
    case 'deletecollection': {
      const opts = parseDeleteOptions(await readJson(r, false), params);
      const sel = parseSelection(params, s, route.namespace);
      return respondObject(r, 200, await registry.deleteCollection(s, sel, opts));
    }
  }
}
