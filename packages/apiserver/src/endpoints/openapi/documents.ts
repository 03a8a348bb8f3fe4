/**
 * The /openapi/v2 document and the /openapi/v3 group-version documents of the served
 * resources, as kube-openapi's builders (pkg/builder, pkg/builder3) make them from
 * kube-apiserver's routes: parameters every operation of a path shares move to the path, and
 * each document carries only the definitions its operations reach.
 */
import type { ResourceInfo } from '../../resources/strategy.js';
import { definitionsFile, groupVersionKindsOf, GVK_EXTENSION, refName, type GroupVersionKind, type Schema } from '../../openapi/definitions.js';
import { resourceOperations, type Operation, type Parameter, type PathOperations } from './operations.js';
import { discoveryOperations } from './discovery-operations.js';
import { customResourceDefinitions } from './custom-resources.js';

export interface GroupVersion {
  group: string;
  version: string;
}

/** What a document is built from: the served resources and the server's "major.minor". */
export interface DocumentInput {
  resources: ResourceInfo[];
  version: string;
}

export const RESPONSE_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 401: 'Unauthorized' };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function byNameIn(a: Parameter, b: Parameter): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.in < b.in ? -1 : a.in > b.in ? 1 : 0;
}

/** Splits a path's parameters into those all its operations share (path level) and each operation's own. */
export function splitParameters(item: PathOperations): { common: Parameter[]; own: Map<Operation, Parameter[]> } {
  const key = (p: Parameter): string => `${p.in}/${p.name}`;
  const counts = new Map<string, number>();
  for (const o of item.operations) for (const p of o.parameters) counts.set(key(p), (counts.get(key(p)) ?? 0) + 1);
  const first = item.operations[0]?.parameters ?? [];
  const common = first.filter((p) => counts.get(key(p)) === item.operations.length).sort(byNameIn);
  const shared = new Set(common.map(key));
  const own = new Map(item.operations.map((o) => [o, o.parameters.filter((p) => !shared.has(key(p))).sort(byNameIn)]));
  return { common, own };
}

/** The definition names a schema tree references, found by walking its `$ref`s. */
function referencesOf(value: unknown, out: Set<string>): void {
  if (Array.isArray(value)) {
    for (const v of value) referencesOf(v, out);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.add(refName(v));
      else referencesOf(v, out);
    }
  }
}

/**
 * The definitions the paths reach, transitively. Kinds that every group registers
 * (DeleteOptions, WatchEvent) list the group versions `gvks` names instead of all of the scheme's.
 */
export function reachableDefinitions(paths: unknown, all: Record<string, Schema>, gvks: GroupVersion[]): Record<string, Schema> {
  const pending = new Set<string>();
  referencesOf(paths, pending);
  const out: Record<string, Schema> = {};
  for (const name of pending) {
    const schema = all[name];
    if (!schema || out[name]) continue;
    out[name] = withServedGroupVersions(schema, gvks);
    referencesOf(schema, pending);
  }
  return Object.fromEntries(Object.keys(out).sort().map((name) => [name, out[name]]));
}

function withServedGroupVersions(schema: Schema, gvks: GroupVersion[]): Schema {
  const listed = groupVersionKindsOf(schema);
  if (new Set(listed.map((g) => g.group)).size <= 1) return schema;
  const kind = listed[0].kind;
  const seen = new Set<string>();
  const served: GroupVersionKind[] = [];
  for (const gv of [{ group: '', version: 'v1' }, ...gvks]) {
    const key = `${gv.group}/${gv.version}`;
    if (!seen.has(key)) served.push({ group: gv.group, kind, version: gv.version } as GroupVersionKind);
    seen.add(key);
  }
  served.sort((a, b) => (a.group === b.group ? a.version.localeCompare(b.version) : a.group < b.group ? -1 : 1));
  return { ...schema, [GVK_EXTENSION]: served };
}

export function servedGroupVersions(resources: ResourceInfo[]): GroupVersion[] {
  const seen = new Map<string, GroupVersion>();
  for (const r of resources) seen.set(`${r.group}/${r.version}`, { group: r.group, version: r.version });
  return [...seen.values()];
}

/** Every path with its operations, discovery ones included, sorted by path. */
export function allPaths(input: DocumentInput): PathOperations[] {
  const paths = [...discoveryOperations(servedGroupVersions(input.resources)), ...input.resources.flatMap(resourceOperations)];
  return paths.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

// ---- OpenAPI v3 ------------------------------------------------------------------------------

function v3Parameter(p: Parameter): Record<string, unknown> {
  return { name: p.name, in: p.in, description: p.description, ...(p.in === 'path' ? { required: true } : {}), schema: { type: p.type, uniqueItems: true } };
}

function v3Content(types: string[], schema: string): Record<string, unknown> {
  return Object.fromEntries([...types].sort().map((t) => [t, { schema: { $ref: `#/components/schemas/${schema}` } }]));
}

function v3Operation(o: Operation, own: Parameter[]): Record<string, unknown> {
  const responses = Object.fromEntries(o.responses.map((r) => [String(r.code), r.schema
    ? { description: RESPONSE_TEXT[r.code], content: v3Content(o.produces, r.schema) }
    : { description: RESPONSE_TEXT[r.code] }]));
  return {
    tags: [o.tag],
    description: o.description,
    operationId: o.operationId,
    ...(own.length > 0 ? { parameters: own.map(v3Parameter) } : {}),
    ...(o.body ? { requestBody: { content: v3Content(o.consumes, o.body.schema), ...(o.body.required ? { required: true } : {}) } } : {}),
    responses,
    ...(o.action ? { 'x-kubernetes-action': o.action } : {}),
    ...(o.gvk ? { [GVK_EXTENSION]: { group: o.gvk.group, version: o.gvk.version, kind: o.gvk.kind } } : {}),
  };
}

/** Path items in one OpenAPI version's form: operations by method, then the shared parameters. */
export function renderPaths<T extends object>(
  paths: PathOperations[],
  operation: (o: Operation, own: Parameter[]) => T,
  parameter: (p: Parameter) => T,
): Record<string, Record<string, T | T[]>> {
  const out: Record<string, Record<string, T | T[]>> = {};
  for (const item of paths) {
    const { common, own } = splitParameters(item);
    const rendered: Record<string, T | T[]> = {};
    for (const method of METHODS) {
      const o = item.operations.find((each) => each.method === method);
      if (o) rendered[method] = operation(o, own.get(o) ?? []);
    }
    if (common.length > 0) rendered.parameters = common.map(parameter);
    out[item.path] = rendered;
  }
  return out;
}

export const BEARER_TOKEN = { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' };

/** /openapi/v3/{key}: key is "api", "api/v1", "apis", "apis/{group}", "apis/{group}/{version}" or "version". */
export function openApiV3Document(input: DocumentInput, paths: PathOperations[], key: string, gv: GroupVersion | undefined): Record<string, unknown> {
  const rendered = renderPaths(paths, v3Operation, v3Parameter);
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: input.version },
    paths: rendered,
    components: {
      schemas: reachableDefinitions(rendered, { ...definitionsFile().schemas, ...customResourceDefinitions(input.resources, 'v3') }, gv ? [gv] : []),
      securitySchemes: { BearerToken: BEARER_TOKEN },
    },
  };
}

/** The v3 document key a path belongs to ("/apis/storage.k8s.io/v1/..." -> "apis/storage.k8s.io/v1"). */
export function v3DocumentKey(path: string): string {
  const t = path.split('/').filter(Boolean);
  if (t[0] === 'api') return t.length > 1 ? `api/${t[1]}` : 'api';
  if (t[0] === 'apis') return t.slice(0, 3).join('/');
  return t[0];
}
