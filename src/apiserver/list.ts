/**
 * List semantics: selection, resourceVersion rules, and limit/continue paging with an opaque
 * token ("the list's resourceVersion + the last key served", base64url JSON).
 */
import { ApiError, BadRequestError, ExpiredError } from '../kube/errors.js';
import type { KubeObject, ObjectList } from '../kube/types.js';
import { apiVersionOf } from './object-decode.js';
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

export function parseListOptions(params: URLSearchParams): ListOptions {
  const opts: ListOptions = {};
  const limit = params.get('limit');
  if (limit !== null && limit !== '') {
    const n = Number(limit);
    if (!Number.isInteger(n) || n < 0) throw new BadRequestError(`invalid limit: ${limit}`);
    if (n > 0) opts.limit = n;
  }
  const cont = params.get('continue');
  if (cont) opts.continueToken = cont;
  const rv = params.get('resourceVersion');
  if (rv !== null && rv !== '') opts.resourceVersion = rv;
  const match = params.get('resourceVersionMatch');
  if (match) opts.resourceVersionMatch = match;
  return opts;
}

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

function decodeContinue(raw: string, storage: Storage): ContinueToken {
  let token: ContinueToken;
  try {
    token = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as ContinueToken;
  } catch {
    throw new BadRequestError('continue key is not valid');
  }
  if (typeof token?.rv !== 'number' || !Array.isArray(token.after) || token.after.length !== 2) {
    throw new BadRequestError('continue key is not valid');
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
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new BadRequestError(`invalid resource version: ${raw}`);
  return n;
}

/** The RV a list is served at; only the latest state exists, so an exact older RV is gone. */
function checkListResourceVersion(opts: ListOptions, storage: Storage): void {
  if (opts.resourceVersionMatch !== undefined) {
    if (opts.resourceVersion === undefined) {
      throw new BadRequestError('resourceVersionMatch is forbidden unless resourceVersion is provided');
    }
    if (opts.resourceVersionMatch !== 'Exact' && opts.resourceVersionMatch !== 'NotOlderThan') {
      throw new BadRequestError(`resourceVersionMatch: unsupported value "${opts.resourceVersionMatch}"`);
    }
  }
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
