/**
 * The generated list call behind each collection the controller's informers watch, keyed by
 * the collection path the watch uses (client-node's `Watch` takes a path). A page comes back as
 * plain JSON items plus the list's resourceVersion and continue token.
 */
import type { KubeObject } from '@pv-controller/kube/types.js';
import { toPlain } from './model-json.js';
import { paths } from './paths.js';
import type { RestTransport } from './transport.js';

export interface ListPageRequest {
  limit?: number;
  continueToken?: string;
  /** Unset: a consistent (quorum) read, as the informers want after a 410. */
  resourceVersion?: string;
}

export interface ListPage<T extends KubeObject> {
  items: T[];
  resourceVersion?: string;
  continueToken?: string;
}

export type ListCall<T extends KubeObject> = (page: ListPageRequest) => Promise<ListPage<T>>;

/** What every generated list returns: a V1…List model. */
interface ModelList {
  items: object[];
  metadata?: { resourceVersion?: string; _continue?: string };
}

type GeneratedList = (transport: RestTransport, param: GeneratedListParam) => Promise<ModelList>;

interface GeneratedListParam {
  limit?: number;
  _continue?: string;
  resourceVersion?: string;
}

const GENERATED_LISTS: Record<string, GeneratedList> = {
  [paths.volumes()]: (t, p) => t.core.listPersistentVolume(p),
  [paths.claimsAll()]: (t, p) => t.core.listPersistentVolumeClaimForAllNamespaces(p),
  [paths.storageClasses()]: (t, p) => t.storage.listStorageClass(p),
  [paths.podsAll()]: (t, p) => t.core.listPodForAllNamespaces(p),
  [paths.nodes()]: (t, p) => t.core.listNode(p),
};

/** Collection paths with a generated list call. */
export function listablePaths(): string[] {
  return Object.keys(GENERATED_LISTS);
}

/** The generated list call for `path`; throws for a collection the controller does not list. */
export function listCallFor<T extends KubeObject>(transport: RestTransport, path: string): ListCall<T> {
  const list = GENERATED_LISTS[path];
  if (!list) throw new Error(`no generated list call for ${path} (known: ${listablePaths().join(', ')})`);
  return async (page) => {
    const param: GeneratedListParam = {};
    if (page.limit !== undefined) param.limit = page.limit;
    if (page.continueToken) param._continue = page.continueToken;
    if (page.resourceVersion !== undefined) param.resourceVersion = page.resourceVersion;
    const out = await transport.call('list', `LIST ${path}`, () => list(transport, param));
    return {
      items: out.items.map((item) => toPlain<T>(item)),
      resourceVersion: out.metadata?.resourceVersion,
      continueToken: out.metadata?._continue || undefined,
    };
  };
}

/** Every page of a list call: all items, and the resourceVersion of the first page (the list's). */
export async function listAllPages<T extends KubeObject>(list: ListCall<T>, pageSize = 500): Promise<{ items: T[]; resourceVersion?: string }> {
  const items: T[] = [];
  let continueToken: string | undefined;
  let resourceVersion: string | undefined;
  do {
    const page = await list({ limit: pageSize, ...(continueToken ? { continueToken } : {}) });
    items.push(...page.items);
    resourceVersion ??= page.resourceVersion;
    continueToken = page.continueToken;
  } while (continueToken);
  return resourceVersion === undefined ? { items } : { items, resourceVersion };
}

/**
 * A list call by path through `request`, for kinds without a generated call (custom resources such
 * as the snapshot kinds). List items carry no kind of their own on every server: `type` is set on each.
 */
export function restListCall<T extends KubeObject>(
  transport: Pick<RestTransport, 'request'>,
  path: string,
  type: { apiVersion: string; kind: string },
): ListCall<T> {
  return async (page) => {
    const query: Record<string, string | number> = {};
    if (page.limit !== undefined) query.limit = page.limit;
    if (page.continueToken) query.continue = page.continueToken;
    if (page.resourceVersion !== undefined) query.resourceVersion = page.resourceVersion;
    const out = await transport.request<{ items?: T[]; metadata?: { resourceVersion?: string; continue?: string } }>({ method: 'GET', verb: 'list', path, query });
    return {
      items: (out.items ?? []).map((item) => ({ ...item, apiVersion: type.apiVersion, kind: type.kind })),
      resourceVersion: out.metadata?.resourceVersion,
      continueToken: out.metadata?.continue || undefined,
    };
  };
}
