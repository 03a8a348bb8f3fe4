/**
 * The /openapi/v2 (Swagger 2.0) document. Parameters are written with the key order Go's
 * encoding gives them, because kube-openapi names each shared parameter by a hash of that
 * encoding (pkg/builder/parameters.go) and clients see those names.
 */
import { customResourceDefinitions } from './custom-resources.js';
import { definitionsFile } from '../../openapi/definitions.js';
import { BEARER_TOKEN, reachableDefinitions, renderPaths, RESPONSE_TEXT, servedGroupVersions, type DocumentInput } from './documents.js';
import type { Operation, Parameter, PathOperations } from './operations.js';

type Json = Record<string, unknown>;

function v2Parameter(p: Parameter): Json {
  return { uniqueItems: true, type: p.type, description: p.description, name: p.name, in: p.in, ...(p.in === 'path' ? { required: true } : {}) };
}

function bodyParameter(body: NonNullable<Operation['body']>): Json {
  return { name: 'body', in: 'body', ...(body.required ? { required: true } : {}), schema: { $ref: `#/definitions/${body.schema}` } };
}

function v2Operation(o: Operation, own: Parameter[]): Json {
  const parameters: Json[] = [...(o.body ? [bodyParameter(o.body)] : []), ...own.map(v2Parameter)];
  const responses = Object.fromEntries(o.responses.map((r) => [String(r.code), r.schema
    ? { description: RESPONSE_TEXT[r.code], schema: { $ref: `#/definitions/${r.schema}` } }
    : { description: RESPONSE_TEXT[r.code] }]));
  return {
    description: o.description,
    consumes: o.consumes,
    produces: o.produces,
    schemes: ['https'],
    tags: [o.tag],
    operationId: o.operationId,
    ...(parameters.length > 0 ? { parameters } : {}),
    responses,
    ...(o.action ? { 'x-kubernetes-action': o.action } : {}),
    ...(o.gvk ? { 'x-kubernetes-group-version-kind': { group: o.gvk.group, kind: o.gvk.kind, version: o.gvk.version } } : {}),
  };
}

/** Go's json.Marshal escapes <, >, & and the line separators; the hash is over those bytes. */
function goJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** kube-openapi's base64Hash: FNV-1 64 of the text, its first 6 bytes in URL-safe base64. */
export function parameterHash(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) h = ((h * 0x100000001b3n) & 0xffffffffffffffffn) ^ BigInt(byte);
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(h);
  return bytes.subarray(0, 6).toString('base64url');
}

/** Parameters kube-openapi never shares: names, dryRun and fieldValidation (kubectl reads them), and kind-specific bodies. */
function shareable(p: Json): boolean {
  if (p.name === 'name' && (p.in === 'query' || p.in === 'path')) return false;
  if (p.in === 'query' && (p.name === 'fieldValidation' || p.name === 'dryRun')) return false;
  const ref = (p.schema as { $ref?: string } | undefined)?.$ref;
  return !(p.in === 'body' && ref !== undefined && !ref.startsWith('#/definitions/io.k8s.apimachinery'));
}

/** Replaces every shareable parameter by a reference into the document's `parameters`. */
function shareParameters(paths: Record<string, Record<string, Json | Json[]>>): Record<string, Json> {
  const lists: Json[][] = [];
  for (const item of Object.values(paths)) {
    for (const value of Object.values(item)) {
      const list = Array.isArray(value) ? value : ((value as Json).parameters as Json[] | undefined);
      if (list) lists.push(list as Json[]);
    }
  }
  const byJson = new Map<string, Json>();
  for (const list of lists) for (const p of list) if (shareable(p)) byJson.set(goJson(p), p);
  const names = new Map<string, string>();
  const shared: Record<string, Json> = {};
  for (const text of [...byJson.keys()].sort()) {
    const name = `${String(byJson.get(text)?.name)}-${parameterHash(text)}`;
    names.set(text, name);
    shared[name] = byJson.get(text) as Json;
  }
  for (const list of lists) {
    list.forEach((p, i) => {
      const name = shareable(p) ? names.get(goJson(p)) : undefined;
      if (name) list[i] = { $ref: `#/parameters/${name}` };
    });
  }
  return Object.fromEntries(Object.keys(shared).sort().map((k) => [k, shared[k]]));
}

export function openApiV2Document(input: DocumentInput, paths: PathOperations[]): Json {
  const rendered = renderPaths(paths, v2Operation, v2Parameter);
  const parameters = shareParameters(rendered);
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: input.version },
    paths: rendered,
    definitions: reachableDefinitions({ rendered, parameters }, { ...definitionsFile().definitions, ...customResourceDefinitions(input.resources, 'v2') }, servedGroupVersions(input.resources)),
    parameters,
    securityDefinitions: { BearerToken: BEARER_TOKEN_V2 },
    security: [{ BearerToken: [] }],
  };
}

const BEARER_TOKEN_V2 = { description: BEARER_TOKEN.description, type: BEARER_TOKEN.type, name: BEARER_TOKEN.name, in: BEARER_TOKEN.in };
