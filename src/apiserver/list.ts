/**
 * List semantics: selection, resourceVersion rules, and limit/continue paging with an opaque
 * token ("the list's resourceVersion + the last key served", base64url JSON).
 */
import { ApiError, BadRequestError, ExpiredError } from '../kube/errors.js';
import type { KubeObject, ObjectList } from '../kube/types.js';
import { apiVersionOf } from './object-decode.js';
import { resourceVersionProblem, type ListQuery } from './query-params.js';
import type { ResourceStrategy } from './resources/strategy.js';
import { selectionMatches, isSelectAll, type Selection } from './selection.js';
import type { Storage } from './storage/storage.js';

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

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

function invalidContinue(detail: string): BadRequestError {
  return new BadRequestError(`invalid continue token: continue key is not valid: ${detail}`);
}

function decodeContinue(raw: string, storage: Storage): ContinueToken {
  let token: ContinueToken;
  try {
    token = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as ContinueToken;
  } catch (err) {
    throw invalidContinue((err as Error).message);
  }
  if (typeof token?.rv !== 'number' || !Array.isArray(token.after) || token.after.length !== 2) {
    throw invalidContinue('not a continue token of this server');
  }
  if (token.rv < storage.oldestRetainedRV()) {
    throw new ApiError(
      410,
      'Expired',
      'The provided continue parameter is too old to display a consistent list result. ' +
        'You can start a new list without the continue parameter.',
    );
  }
  return token;
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

function isAfter(obj: KubeObject, after: [string, string]): boolean {
  const ns = obj.metadata.namespace ?? '';
  if (ns !== after[0]) return ns > after[0];
  return (obj.metadata.name ?? '') > after[1];
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
  let items = storage.list(resource, sel.namespace);
  if (token) items = items.filter((o) => isAfter(o, token.after));
  if (!isSelectAll(sel)) items = items.filter((o) => selectionMatches(sel, o, strategy));
  const metadata: ObjectList['metadata'] = { resourceVersion: String(listRV) };
  if (opts.limit !== undefined && items.length > opts.limit) {
    const remaining = items.length - opts.limit;
    items = items.slice(0, opts.limit);
    const last = items[items.length - 1].metadata;
    metadata.continue = encodeContinue({ rv: listRV, after: [last.namespace ?? '', last.name ?? ''] });
    if (isSelectAll(sel)) metadata.remainingItemCount = remaining;
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
