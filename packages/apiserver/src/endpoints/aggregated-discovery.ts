/**
 * Aggregated discovery (apidiscovery.k8s.io/v2 APIGroupDiscoveryList) on /api and /apis: every
 * group, version and resource in one document, which kubectl 1.30+ asks for first. v2beta1 is
 * no longer served by kube-apiserver 1.37, so a client offering only that gets 406 and one that
 * also offers plain JSON gets the legacy documents, as there.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NotAcceptableError, parseAccept } from '../api/accept.js';
import type { ServedResource } from './discovery.js';

const AGGREGATED_MEDIA_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/** kube-apiserver's 406 text for a discovery request offering nothing it serves. */
const DISCOVERY_NOT_ACCEPTABLE =
  'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf';

type Body = Record<string, unknown>;

/** 'aggregated' or 'legacy' for an Accept header; 406 when every offer names a form not served. */
export function negotiateDiscovery(accept: string | undefined, aggregatedHere: boolean): 'aggregated' | 'legacy' {
  const ranges = parseAccept(accept ?? '');
  if (ranges.length === 0) return 'legacy';
  for (const r of ranges) {
    const as = r.params.as;
    if (as === undefined) return 'legacy';
    const jsonish = r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*';
    if (aggregatedHere && jsonish && as === 'APIGroupDiscoveryList' && r.params.g === 'apidiscovery.k8s.io' && r.params.v === 'v2') {
      return 'aggregated';
    }
  }
  throw new NotAcceptableError(DISCOVERY_NOT_ACCEPTABLE);
}

function resourceEntry(s: ServedResource): Body {
  const i = s.info;
  const entry: Body = {
    resource: i.plural,
    responseKind: { group: '', version: '', kind: i.kind },
    scope: i.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: i.singular,
    verbs: i.verbs,
  };
  if (i.shortNames.length > 0) entry.shortNames = i.shortNames;
  if (i.categories && i.categories.length > 0) entry.categories = i.categories;
  if (i.hasStatus) {
    entry.subresources = [{ subresource: 'status', responseKind: { group: '', version: '', kind: i.kind }, verbs: ['get', 'patch', 'update'] }];
  }
  return entry;
}

/** One APIGroupDiscovery per group, versions in first-seen order, resources sorted as upstream. */
function groupItems(served: ServedResource[], core: boolean): Body[] {
  const byGroup = new Map<string, Map<string, ServedResource[]>>();
  for (const s of served) {
    if ((s.info.group === '') !== core) continue;
    const versions = byGroup.get(s.info.group) ?? new Map<string, ServedResource[]>();
    versions.set(s.info.version, [...(versions.get(s.info.version) ?? []), s]);
    byGroup.set(s.info.group, versions);
  }
  return [...byGroup].map(([group, versions]) => ({
    metadata: group === '' ? {} : { name: group },
    versions: [...versions].map(([version, list]) => ({
      version,
      resources: [...list].sort((a, b) => a.info.plural.localeCompare(b.info.plural)).map(resourceEntry),
      freshness: 'Current',
    })),
  }));
}

export function aggregatedDiscoveryDocument(served: ServedResource[], root: 'api' | 'apis'): Body {
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items: groupItems(served, root === 'api') };
}

/** Sends the document with kube-apiserver's caching headers; 304 when the client's ETag is current. */
export function sendAggregatedDiscovery(req: IncomingMessage, res: ServerResponse, doc: Body): void {
  const json = JSON.stringify(doc);
  const etag = `"${createHash('sha512').update(json).digest('hex').toUpperCase()}"`;
  const headers = { 'Cache-Control': 'public', ETag: etag, Vary: 'Accept' };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, { ...headers, 'Content-Type': AGGREGATED_MEDIA_TYPE, 'Content-Length': String(Buffer.byteLength(json)) });
  res.end(json);
}
