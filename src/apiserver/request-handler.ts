/**
 * The HTTP entry point: authentication, non-resource paths (health, version, discovery,
 * OpenAPI) and resource paths, error mapping, and request accounting.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { MethodNotAllowedError, UnauthorizedError, statusOf } from '../kube/errors.js';
import { hasValidToken, isOpenPath } from './auth.js';
import { apiGroupDocument, apiGroupList, apiResourceList, apiVersions, SERVER_VERSION } from './discovery.js';
import { pathNotFound, statusResponseFor } from './errors.js';
import { sendJson } from './http-io.js';
import { OPENAPI_V2_STUB, openApiV3Document, openApiV3Index } from './openapi.js';
import type { Registry } from './registry.js';
import { checkRoute, serveResource, verbOf } from './resource-handler.js';
import { parseResourcePath, type ResourcePath } from './router.js';
import type { RequestRecord, RequestStats } from './stats.js';
import type { WatchHub } from './watch.js';

export interface HandlerDeps {
  registry: Registry;
  hub: WatchHub;
  stats: RequestStats;
  token: string;
  log: Logger;
  /** host:port clients reach us on (for /api's serverAddressByClientCIDRs). */
  serverAddress: () => string;
}

function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}

/** Request counters over HTTP (for a server in another process): GET reads, DELETE resets. */
export const STATS_PATH = '/debug/api-stats';

function serveStats(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse): true {
  if (req.method === 'DELETE') deps.stats.reset();
  else if (req.method !== 'GET') throw new MethodNotAllowedError();
  sendJson(res, 200, deps.stats.snapshot(deps.hub.activeWatches()));
  return true;
}

/** Health, version, discovery and OpenAPI. Returns false when the path is none of them. */
function serveNonResource(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse, path: string): boolean {
  const strategies = deps.registry.strategies;
  const parts = path.split('/').filter((p) => p !== '');
  let body: unknown;
  if (['healthz', 'livez', 'readyz'].includes(parts[0] ?? '')) {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new MethodNotAllowedError();
    sendText(res, 200, 'ok');
    return true;
  }
  if (path === '/openapi/v2' || path === '/swagger-2.0.0.pb-v1') {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(OPENAPI_V2_STUB.length) });
    res.end(OPENAPI_V2_STUB);
    return true;
  }
  if (path === STATS_PATH) return serveStats(deps, req, res);
  if (path === '/version') body = SERVER_VERSION;
  else if (path === '/api') body = apiVersions(deps.serverAddress());
  else if (path === '/apis') body = apiGroupList(strategies);
  else if (parts[0] === 'api' && parts.length === 2) body = apiResourceList(strategies, '', parts[1]);
  else if (parts[0] === 'apis' && parts.length === 2) body = apiGroupDocument(strategies, parts[1]);
  else if (parts[0] === 'apis' && parts.length === 3) body = apiResourceList(strategies, parts[1], parts[2]);
  else if (path === '/openapi/v3') body = openApiV3Index(strategies);
  else if (parts[0] === 'openapi' && parts[1] === 'v3' && parts[2] === 'api' && parts.length === 4) {
    body = openApiV3Document(strategies, '', parts[3]);
  } else if (parts[0] === 'openapi' && parts[1] === 'v3' && parts[2] === 'apis' && parts.length === 5) {
    body = openApiV3Document(strategies, parts[3], parts[4]);
  } else return false;
  if (body === undefined) throw pathNotFound();
  if (req.method !== 'GET') throw new MethodNotAllowedError();
  sendJson(res, 200, body);
  return true;
}

function resourceLabel(route: ResourcePath): string {
  const base = route.group ? `${route.plural}.${route.group}` : route.plural;
  return route.subresource ? `${base}/${route.subresource}` : base;
}

async function serve(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse, url: URL, rec: RequestRecord): Promise<void> {
  const path = url.pathname;
  if (!isOpenPath(path) && !hasValidToken(req, deps.token)) throw new UnauthorizedError();
  if (serveNonResource(deps, req, res, path)) return;
  const route = parseResourcePath(path);
  if (!route) throw pathNotFound();
  rec.resource = resourceLabel(route);
  rec.namespace = route.namespace;
  rec.name = route.name;
  const strategy = deps.registry.strategyFor(route.group, route.version, route.plural);
  if (!strategy) throw pathNotFound();
  const method = req.method ?? 'GET';
  const verb = checkRoute(strategy, route, verbOf(method, route, url.searchParams), method);
  rec.verb = verb;
  await serveResource({ req, res, params: url.searchParams, route, strategy }, verb, deps.registry, deps.hub);
}

export function createRequestHandler(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'https://apiserver.invalid');
    const rec: RequestRecord = { verb: (req.method ?? '').toLowerCase(), resource: '', code: 0 };
    let reason: string | undefined;
    serve(deps, req, res, url, rec)
      .catch((err: unknown) => {
        const { code, body } = statusResponseFor(err, deps.log);
        reason = statusOf(err).reason;
        if (res.headersSent) res.end();
        else sendJson(res, code, body);
      })
      .finally(() => {
        rec.code = res.statusCode;
        deps.stats.record(rec, reason);
        deps.log.debug({ verb: rec.verb, path: url.pathname, code: rec.code }, 'request');
      });
  };
}
