/**
 * The REST operations of the served resources, as kube-apiserver's endpoint installer
 * (k8s.io/apiserver/pkg/endpoints/installer.go) registers them with go-restful: one entry per
 * path and method with its operation id, action, query parameters, body and responses. The
 * document builders render these as OpenAPI v2 and v3.
 */
import type { ResourceInfo } from '../../resources/strategy.js';
import { definitionNameOf, definitionsFile, type GroupVersionKind } from '../../openapi/definitions.js';
import { publishedName } from './custom-resources.js';

export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

export interface Parameter {
  name: string;
  in: 'path' | 'query';
  type: string;
  description: string;
}

export interface Response {
  code: number;
  /** Definition name of the body, none for 401. */
  schema?: string;
}

export interface Operation {
  method: 'get' | 'put' | 'post' | 'delete' | 'patch';
  action?: string;
  operationId: string;
  description: string;
  tag: string;
  parameters: Parameter[];
  body?: { schema: string; required: boolean };
  consumes: string[];
  produces: string[];
  responses: Response[];
  gvk?: GroupVersionKind;
}

export interface PathOperations {
  path: string;
  operations: Operation[];
}

const PRETTY: Parameter = {
  name: 'pretty',
  in: 'query',
  type: 'string',
  description: "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget).",
};
const NAMESPACE: Parameter = { name: 'namespace', in: 'path', type: 'string', description: 'object name and auth scope, such as for teams and projects' };

export const OBJECT_MEDIA = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const STREAM_MEDIA = [...OBJECT_MEDIA, 'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];
const PATCH_MEDIA = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

/** Resources whose registry answers a delete with a Status instead of the deleted object (ReturnDeletedObject unset). */
const DELETE_ANSWERS_STATUS = new Set([
  '/events', '/namespaces', '/nodes', '/configmaps', '/endpoints', '/limitranges', '/replicationcontrollers', '/secrets',
  'events.k8s.io/events', 'coordination.k8s.io/leases', 'storage.k8s.io/csistoragecapacities',
]);

/** The query parameters an options type (ListOptions, CreateOptions, ...) contributes: its scalar fields. */
function optionParameters(options: string, exclude: string[] = []): Parameter[] {
  const schema = definitionsFile().schemas[`${META}.${options}`];
  const out: Parameter[] = [];
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    if (name === 'kind' || name === 'apiVersion' || exclude.includes(name) || !property.type || property.type === 'object') continue;
    out.push({ name, in: 'query', type: property.type === 'array' ? 'string' : property.type, description: property.description ?? '' });
  }
  return out;
}

/** "storage.k8s.io" -> ["storage"], "rbac.authorization.k8s.io" -> ["rbac", "authorization"], "" -> ["core"]. */
function groupWords(group: string): string[] {
  return group === '' ? ['core'] : group.replace(/\.k8s\.io$/, '').split('.');
}

export const upper = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** go-restful tag of a group version: "core_v1", "storage_v1", "rbacAuthorization_v1". */
export function groupVersionTag(group: string, version: string): string {
  const words = groupWords(group);
  return `${words[0]}${words.slice(1).map(upper).join('')}_${version}`;
}

/** Operation id infix of a group: "Core", "Storage", "RbacAuthorization". */
export function groupId(group: string): string {
  return groupWords(group).map(upper).join('');
}

/** Operation id infix of a group version: "CoreV1", "StorageV1". */
function groupVersionId(group: string, version: string): string {
  return groupId(group) + upper(version);
}

interface ResourceContext {
  info: ResourceInfo;
  gvk: GroupVersionKind;
  object: string;
  list: string;
  tag: string;
  gv: string;
}

function contextOf(info: ResourceInfo): ResourceContext | undefined {
  const gvk = { group: info.group, version: info.version, kind: info.kind };
  const object = info.custom ? publishedName(info) : definitionNameOf(gvk);
  if (!object) return undefined;
  const list = info.custom ? publishedName(info, info.listKind) : definitionNameOf({ ...gvk, kind: info.listKind }) ?? `${META}.Status`;
  return { info, gvk, object, list, tag: groupVersionTag(info.group, info.version), gv: groupVersionId(info.group, info.version) };
}

function op(ctx: ResourceContext, fields: Omit<Operation, 'tag' | 'gvk' | 'consumes' | 'produces'> & Partial<Pick<Operation, 'consumes' | 'produces'>>): Operation {
  return { consumes: ['*/*'], produces: OBJECT_MEDIA, ...fields, tag: ctx.tag, gvk: ctx.gvk };
}

function ok(schema: string, ...codes: number[]): Response[] {
  return [...[200, ...codes].map((code) => ({ code, schema })), { code: 401 }];
}

function collectionOperations(ctx: ResourceContext, ns: string): Operation[] {
  const { info, gv } = ctx;
  const verbs = new Set(info.verbs);
  const ops: Operation[] = [];
  if (verbs.has('list')) {
    ops.push(op(ctx, { method: 'get', action: 'list', operationId: `list${gv}${ns}${info.kind}`, description: `list or watch objects of kind ${info.kind}`,
      parameters: optionParameters('ListOptions'), produces: STREAM_MEDIA, responses: ok(ctx.list) }));
  }
  if (verbs.has('create')) {
    ops.push(op(ctx, { method: 'post', action: 'post', operationId: `create${gv}${ns}${info.kind}`, description: `create ${article(info.kind)} ${info.kind}`,
      parameters: optionParameters('CreateOptions'), body: { schema: ctx.object, required: true }, responses: ok(ctx.object, 201, 202) }));
  }
  if (verbs.has('deletecollection')) {
    ops.push(op(ctx, { method: 'delete', action: 'deletecollection', operationId: `delete${gv}Collection${ns}${info.kind}`, description: `delete collection of ${info.kind}`,
      parameters: [...optionParameters('ListOptions', ['watch', 'allowWatchBookmarks']), ...deleteParameters()],
      body: { schema: `${META}.DeleteOptions`, required: false }, responses: ok(`${META}.Status`) }));
  }
  return ops;
}

function deleteParameters(): Parameter[] {
  return optionParameters('DeleteOptions');
}

function article(kind: string): string {
  return /^[AEIOU]/.test(kind) ? 'an' : 'a';
}

function itemOperations(ctx: ResourceContext, ns: string, status: boolean): Operation[] {
  const { info, gv } = ctx;
  const verbs = new Set(info.verbs);
  const suffix = status ? 'Status' : '';
  const what = status ? `status of the specified ${info.kind}` : `the specified ${info.kind}`;
  const ops: Operation[] = [];
  if (verbs.has('get')) ops.push(op(ctx, { method: 'get', action: 'get', operationId: `read${gv}${ns}${info.kind}${suffix}`, description: `read ${what}`, parameters: [], responses: ok(ctx.object) }));
  if (verbs.has('update')) {
    ops.push(op(ctx, { method: 'put', action: 'put', operationId: `replace${gv}${ns}${info.kind}${suffix}`, description: `replace ${what}`,
      parameters: optionParameters('UpdateOptions'), body: { schema: ctx.object, required: true }, responses: ok(ctx.object, 201) }));
  }
  if (verbs.has('delete') && !status) {
    const answer = DELETE_ANSWERS_STATUS.has(`${info.group}/${info.plural}`) || info.custom ? `${META}.Status` : ctx.object;
    ops.push(op(ctx, { method: 'delete', action: 'delete', operationId: `delete${gv}${ns}${info.kind}`, description: `delete ${article(info.kind)} ${info.kind}`,
      parameters: deleteParameters(), body: { schema: `${META}.DeleteOptions`, required: false }, responses: ok(answer, 202) }));
  }
  if (verbs.has('patch')) {
    ops.push(op(ctx, { method: 'patch', action: 'patch', operationId: `patch${gv}${ns}${info.kind}${suffix}`, description: `partially update ${what}`,
      parameters: optionParameters('PatchOptions'), body: { schema: `${META}.Patch`, required: true }, consumes: PATCH_MEDIA, responses: ok(ctx.object, 201) }));
  }
  return ops;
}

function watchOperation(ctx: ResourceContext, ns: string, single: boolean): Operation {
  const { info, gv } = ctx;
  const description = single
    ? `watch changes to an object of kind ${info.kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`
    : `watch individual changes to a list of ${info.kind}. deprecated: use the 'watch' parameter with a list operation instead.`;
  return op(ctx, { method: 'get', action: single ? 'watch' : 'watchlist', operationId: `watch${gv}${ns}${info.kind}${single ? '' : 'List'}`, description,
    parameters: optionParameters('ListOptions'), produces: STREAM_MEDIA, responses: ok(`${META}.WatchEvent`) });
}

function nameParameter(kind: string): Parameter {
  return { name: 'name', in: 'path', type: 'string', description: `name of the ${kind}` };
}

function withParameters(operations: Operation[], parameters: Parameter[]): Operation[] {
  return operations.map((o) => ({ ...o, parameters: [...parameters, ...o.parameters, PRETTY] }));
}

/** Every path and operation of one resource, namespaced or not. */
export function resourceOperations(info: ResourceInfo): PathOperations[] {
  const ctx = contextOf(info);
  if (!ctx) return [];
  const root = info.group ? `/apis/${info.group}/${info.version}` : `/api/${info.version}`;
  const ns = info.namespaced ? 'Namespaced' : '';
  const scope = info.namespaced ? '/namespaces/{namespace}' : '';
  const scopeParams = info.namespaced ? [NAMESPACE] : [];
  const named = [nameParameter(info.kind), ...scopeParams];
  const out: PathOperations[] = [
    { path: `${root}${scope}/${info.plural}`, operations: withParameters(collectionOperations(ctx, ns), scopeParams) },
    { path: `${root}${scope}/${info.plural}/{name}`, operations: withParameters(itemOperations(ctx, ns, false), named) },
  ];
  if (info.hasStatus) out.push({ path: `${root}${scope}/${info.plural}/{name}/status`, operations: withParameters(itemOperations(ctx, ns, true), named) });
  if (info.verbs.includes('watch')) {
    out.push({ path: `${root}/watch${scope}/${info.plural}`, operations: withParameters([watchOperation(ctx, ns, false)], scopeParams) });
    out.push({ path: `${root}/watch${scope}/${info.plural}/{name}`, operations: withParameters([watchOperation(ctx, ns, true)], named) });
  }
  if (info.namespaced && info.verbs.includes('list')) for (const op of allNamespacesOperations(ctx, root)) out.push(op);
  return out.filter((p) => p.operations.length > 0);
}

function allNamespacesOperations(ctx: ResourceContext, root: string): PathOperations[] {
  const { info, gv } = ctx;
  const list = op(ctx, { method: 'get', action: 'list', operationId: `list${gv}${info.kind}ForAllNamespaces`, description: `list or watch objects of kind ${info.kind}`,
    parameters: optionParameters('ListOptions'), produces: STREAM_MEDIA, responses: ok(ctx.list) });
  const out = [{ path: `${root}/${info.plural}`, operations: withParameters([list], []) }];
  if (info.verbs.includes('watch')) {
    const watch = { ...watchOperation(ctx, '', false), operationId: `watch${gv}${info.kind}ListForAllNamespaces` };
    out.push({ path: `${root}/watch/${info.plural}`, operations: withParameters([watch], []) });
  }
  return out;
}
