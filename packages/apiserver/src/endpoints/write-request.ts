/**
 * A write request's body and query made into what the registry takes, in kube-apiserver's order
 * (a body too large or of an unknown type is refused before the options, bad options before the
 * body is decoded): a create or update body decoded into the resource's kind (JSON, YAML or
 * protobuf, field validation, size and nesting limits), a patch or an apply configuration made
 * into a function of the stored object, DeleteOptions from the body or else the query.
 */
import type { IncomingMessage } from 'node:http';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { parseApplyConfig } from '../registry/apply/apply-request.js';
import { applyToObject } from '../registry/apply/ownership.js';
import { objectBodyFormat, parseRequestBody } from '../decode/request-body.js';
import { decodeDeleteOptions, parseDeleteOptions } from './delete-options.js';
import type { DeleteOptions } from '../registry/deletion.js';
import type { DecodedObject } from '../decode/field-validation.js';
import type { FieldValidation } from '../api/query-params.js';
import { readBody } from '../api/http-io.js';
import { requireNameMatchesUrl } from '../registry/meta-rules.js';
import { apiVersionOf, decodeObject, setScope } from '../decode/object-decode.js';
import { APPLY_PATCH_YAML, applyPatch, isApplyPatch, parsePatchBody, requirePatchContentType } from './patch/index.js';
import { decodePatchResult } from './patch/patch-result.js';
import { parseWriteQuery, type WriteOptionsKind } from '../api/query-params.js';
import type { Applier, Patcher, WriteOptions } from '../registry/registry.js';
import type { ResourceStrategy } from '../resources/strategy.js';
import type { ResourcePath } from '../api/router.js';

/** What a write request is: the HTTP request, its query, its route and the resource's strategy. */
export interface WriteRequest {
  req: IncomingMessage;
  params: URLSearchParams;
  route: ResourcePath;
  strategy: ResourceStrategy;
}

/** How the body is decoded: the query's fieldValidation, and force for server-side apply. */
interface DecodeOptions {
  fieldValidation: FieldValidation;
  force: boolean;
}

/** A PATCH as the registry takes it: a server-side apply, or any other patch. */
export type PatchWrite = { apply: Applier } | { patch: Patcher };

/**
 * The manager a write is recorded under without a fieldManager parameter: the User-Agent up to
 * its first "/", printable characters only, at most 128 bytes (kube-apiserver's
 * prefixFromUserAgent); "unknown" when nothing is left.
 */
export function managerFromUserAgent(userAgent: string | undefined): string {
  // A client sends the same User-Agent on every request: the last answer is kept.
  if (userAgent === lastUserAgent.header) return lastUserAgent.manager;
  const manager = prefixFromUserAgent(userAgent);
  lastUserAgent = { header: userAgent, manager };
  return manager;
}

let lastUserAgent: { header: string | undefined; manager: string } = { header: undefined, manager: 'unknown' };

function prefixFromUserAgent(userAgent: string | undefined): string {
  let out = '';
  for (const ch of (userAgent ?? '').split('/')[0]) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > 128) break;
    out += ch;
  }
  return out === '' ? 'unknown' : out;
}

function writeOptions(r: WriteRequest, kind: WriteOptionsKind): { opts: WriteOptions; decode: DecodeOptions } {
  const apply = kind === 'PatchOptions' && isApplyPatch(r.req.headers['content-type'] ?? '');
  const query = parseWriteQuery(r.params, kind, apply);
  const fieldManager = query.fieldManager !== '' ? query.fieldManager : managerFromUserAgent(r.req.headers['user-agent']);
  return {
    opts: { subresource: r.route.subresource, dryRun: query.dryRun, fieldManager },
    decode: { fieldValidation: query.fieldValidation, force: query.force },
  };
}

/** A create (POST) or update (PUT): the body decoded into the resource's kind, and the write's options. */
export async function readObjectWrite(r: WriteRequest, kind: 'CreateOptions' | 'UpdateOptions'): Promise<{ decoded: DecodedObject; opts: WriteOptions }> {
  const format = objectBodyFormat(r.req.headers['content-type']);
  const raw = await readBody(r.req);
  const { opts, decode } = writeOptions(r, kind);
  const info = r.strategy.info;
  const body = parseRequestBody(raw, { role: 'object', kind: info.kind, apiVersion: apiVersionOf(info) }, format);
  return { decoded: decodeObject(info, body, r.route.namespace ?? '', decode.fieldValidation), opts };
}

/** A PATCH: the patch type by Content-Type, an apply configuration decoded at once, any other patch against the stored object. */
export async function readPatchWrite(r: WriteRequest): Promise<{ write: PatchWrite; opts: WriteOptions }> {
  const contentType = r.req.headers['content-type'] ?? '';
  requirePatchContentType(contentType, r.strategy.info.custom !== undefined);
  const raw = await readBody(r.req);
  const { opts, decode } = writeOptions(r, 'PatchOptions');
  const namespace = r.route.namespace ?? '';
  const name = r.route.name ?? '';
  if (!isApplyPatch(contentType)) return { write: { patch: patcherFor(r.strategy, namespace, name, contentType, raw, decode.fieldValidation) }, opts };
  const config = parseApplyConfig(r.strategy.info, raw, namespace, name);
  return { write: { apply: applierFor(r.strategy, namespace, name, config, decode) }, opts };
}

/** A DELETE's options: from its body when it has one, else from its query. */
export async function readDeleteOptions(r: WriteRequest): Promise<DeleteOptions> {
  const body = decodeDeleteOptions(await readBody(r.req), r.req.headers['content-type']);
  return parseDeleteOptions(body, r.params);
}

/** A JSON, merge or strategic merge patch as a function of the stored object; the body is parsed once that is read. */
export function patcherFor(
  s: ResourceStrategy,
  namespace: string,
  name: string,
  contentType: string,
  body: unknown,
  fieldValidation: FieldValidation = 'Warn',
): Patcher {
  return (prev) => {
    const patch = parsePatchBody(contentType, body);
    // The decoded result is a fresh copy: patch results may share (frozen) subtrees with the stored object.
    const decoded = decodePatchResult(s.info, contentType, patch, applyPatch(contentType, prev, patch, s), fieldValidation);
    setScope(s.info, decoded.object, namespace);
    requireNameMatchesUrl(decoded.object.metadata, name);
    return decoded;
  };
}

/** A server-side apply of a decoded configuration, merged into the live object or made into a new one. */
function applierFor(s: ResourceStrategy, namespace: string, name: string, config: KubeObject, decode: DecodeOptions): Applier {
  return (live, ownership) => {
    const out = applyToObject(s.info, live, config, decode.force, ownership);
    if (!live) {
      setScope(s.info, out.object, namespace);
      requireNameMatchesUrl(out.object.metadata, name);
      return { ...decodeObject(s.info, out.object, namespace, decode.fieldValidation), managedFields: out.managedFields };
    }
    const decoded = decodePatchResult(s.info, APPLY_PATCH_YAML, config, out.object, decode.fieldValidation);
    setScope(s.info, decoded.object, namespace);
    requireNameMatchesUrl(decoded.object.metadata, name);
    return { ...decoded, managedFields: out.managedFields };
  };
}
