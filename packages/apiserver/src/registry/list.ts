/**
 * List semantics: selection, resourceVersion rules, and limit/continue paging with an opaque
 * token ("the list's resourceVersion + the last key served", base64url JSON).
 */
import { ApiError, BadRequestError, ExpiredError } from '@pv-controller/kube/errors.js';
import type { KubeObject, ObjectList } from '@pv-controller/kube/types.js';
import { goJsonSyntaxError } from '../api/go-json-syntax.js';
import { jsonTypeOf } from '../decode/typed-decoder.js';
import { apiVersionOf } from '../decode/object-decode.js';
import { resourceVersionProblem, type ListQuery } from '../api/query-params.js';
import type { ResourceStrategy } from '../resources/strategy.js';
import { selectionMatches, isSelectAll, type Selection } from './selection.js';
import type { Storage } from '../storage/storage.js';

export interface ListOptions {
  limit?: number;
  continueToken?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

interface ContinueToken {
  rv: number;
  /** namespace + '/' + name of the last item served. */
  after: [string, string];
}

/** The paging and resourceVersion part of a parsed ListOptions query. */
export function listOptionsFrom(q: ListQuery): ListOptions {
  const opts: ListOptions = {};
  // Zero or negative is no limit, as upstream's storage reads it.
  if (q.limit > 0n) opts.limit = q.limit > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(q.limit);
  if (q.continueToken !== '') opts.continueToken = q.continueToken;
  if (q.resourceVersion !== '') opts.resourceVersion = q.resourceVersion;
  if (q.resourceVersionMatch !== '') opts.resourceVersionMatch = q.resourceVersionMatch;
  return opts;
}

/** The version upstream's continue tokens carry ("v"). */
const UPSTREAM_TOKEN_VERSION = 'meta.k8s.io/v1';

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

function invalidContinue(detail: string): BadRequestError {
  return new BadRequestError(`invalid continue token: continue key is not valid: ${detail}`);
}

/** Go's base64.RawURLEncoding errors: the first byte outside the alphabet, or a lone last byte. */
function base64Problem(raw: string): string | undefined {
  let count = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\n' || c === '\r') continue;
    if (!/[A-Za-z0-9_-]/.test(c)) return `illegal base64 data at input byte ${i}`;
    count++;
  }
  return count % 4 === 1 ? `illegal base64 data at input byte ${raw.length - 1}` : undefined;
}

/** The token's JSON, with the errors kube-apiserver's continue-key decoder gives for what is not one. */
function parseContinueJson(raw: string): unknown {
  const problem = base64Problem(raw);
  if (problem !== undefined) throw invalidContinue(problem);
  const bytes = Buffer.from(raw.replace(/[\r\n]/g, ''), 'base64url');
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw invalidContinue(goJsonSyntaxError(bytes) ?? (err as Error).message);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    if (value === null) return {};
    throw invalidContinue(`json: cannot unmarshal ${jsonTypeOf(value)} into Go value of type storage.continueToken`);
  }
  return value;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The literal text of the token's `rv` number, as Go's error quotes it (JSON.parse loses it). */
function rvLiteral(json: string): string {
  return /"rv"\s*:\s*(-?[0-9][0-9.eE+-]*)/.exec(json)?.[1] ?? '';
}

/**
 * Go's decoding of a token's fields into kube-apiserver's continueToken {v string; rv int64;
 * start string}: the first field of the wrong type, in document order, is the error.
 */
function goFieldTypeProblem(token: Record<string, unknown>, json: string): string | undefined {
  const goTypes: Record<string, string> = { v: 'string', rv: 'int64', start: 'string' };
  for (const [field, value] of Object.entries(token)) {
    const goType = goTypes[field];
    if (goType === undefined || value === null) continue;
    const into = `into Go struct field continueToken.${field} of type ${goType}`;
    if (goType === 'string') {
      if (typeof value !== 'string') return `json: cannot unmarshal ${jsonTypeOf(value)} ${into}`;
      continue;
    }
    if (typeof value !== 'number') return `json: cannot unmarshal ${jsonTypeOf(value)} ${into}`;
    const literal = rvLiteral(json);
    if (!/^-?\d+$/.test(literal) || BigInt(literal) < INT64_MIN || BigInt(literal) > INT64_MAX) {
      return `json: cannot unmarshal number ${literal} ${into}`;
    }
  }
  return undefined;
}

/** kube-apiserver's answer to a list at a resourceVersion it has not reached (it waits 3 s first). */
function tooLargeResourceVersion(requested: number, current: number): ApiError {
  return new ApiError(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1,
  });
}

/**
 * A continue token of ours: its fields typed as Go would decode them (a forged `rv` of 1e308 was
 * served, and echoed as the list's resourceVersion "1e+308"), a positive integer rv this server
 * has reached and not compacted, and the key to continue after.
 */
function decodeContinue(raw: string, storage: Storage): ContinueToken {
  const token = parseContinueJson(raw) as Partial<ContinueToken> & { v?: unknown };
  const typeProblem = goFieldTypeProblem(token, Buffer.from(raw.replace(/[\r\n]/g, ''), 'base64url').toString('utf8'));
  if (typeProblem !== undefined) throw invalidContinue(typeProblem);
  const ours = Number.isSafeInteger(token.rv) && (token.rv as number) > 0 && Array.isArray(token.after) && token.after.length === 2 &&
    token.after.every((k) => typeof k === 'string');
  if (!ours) {
    // Not one of ours: upstream's decoding of its own token format decides the message.
    const version = typeof token.v === 'string' ? token.v : '';
    throw invalidContinue(version === UPSTREAM_TOKEN_VERSION ? 'not a continue token of this server' : `server does not recognize this encoded version ${version}`);
  }
  const rv = token.rv as number;
  if (rv > storage.currentRV()) throw tooLargeResourceVersion(rv, storage.currentRV());
  if (rv < storage.oldestRetainedRV()) {
    throw new ApiError(
      410,
      'Expired',
      'The provided continue parameter is too old to display a consistent list result. ' +
        'You can start a new list without the continue parameter.',
    );
  }
  return token as ContinueToken;
}

function parseRV(raw: string): number {
  const problem = resourceVersionProblem(raw);
  if (problem !== undefined) throw new BadRequestError(`invalid resource version: ${problem}`);
  return Number(raw);
}

/** The RV a list is served at; only the latest state exists, so an exact older RV is gone. */
function checkListResourceVersion(opts: ListOptions, storage: Storage): void {
  if (opts.resourceVersion === undefined) return;
  const rv = parseRV(opts.resourceVersion);
  if (opts.resourceVersionMatch === 'Exact' && rv !== storage.currentRV()) {
    throw new ExpiredError(rv, storage.currentRV());
  }
}

export function listObjects(
  storage: Storage,
  strategy: ResourceStrategy,
  resource: string,
  sel: Selection,
  opts: ListOptions,
): ObjectList {
  checkListResourceVersion(opts, storage);
  const token = opts.continueToken ? decodeContinue(opts.continueToken, storage) : undefined;
  const listRV = token ? token.rv : storage.currentRV();
  const selectAll = isSelectAll(sel);
  // One more than a page tells whether a continue token is due.
  const wanted = opts.limit === undefined ? Infinity : opts.limit + 1;
  let items: KubeObject[] = [];
  const after = storage.walkAfter(resource, sel.namespace, token?.after, (obj) => {
    if (selectAll || selectionMatches(sel, obj, strategy)) items.push(obj);
    return items.length < wanted;
  });
  const metadata: ObjectList['metadata'] = { resourceVersion: String(listRV) };
  if (opts.limit !== undefined && items.length > opts.limit) {
    items = items.slice(0, opts.limit);
    const last = items[items.length - 1].metadata;
    metadata.continue = encodeContinue({ rv: listRV, after: [last.namespace ?? '', last.name ?? ''] });
    if (selectAll) metadata.remainingItemCount = after - opts.limit;
  }
  return { kind: strategy.info.listKind, apiVersion: apiVersionOf(strategy.info), metadata, items };
}

/**
 * A list as kube-apiserver serialises it: the items carry no apiVersion or kind of their own (the
 * list's say it once). Shallow copies: the stored items stay as they are.
 */
export function withoutItemTypeMeta(list: ObjectList): ObjectList {
  return { ...list, items: list.items.map(({ apiVersion: _v, kind: _k, ...rest }) => rest as KubeObject) };
}
