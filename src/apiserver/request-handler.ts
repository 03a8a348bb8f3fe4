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
import { OpenApiDocuments, serveOpenApiV2, serveOpenApiV3 } from './openapi.js';
import type { Registry } from './registry.js';
import { checkRoute, serveResource, verbOf } from './resource-handler.js';
import { MalformedRequestTargetError, parseRequestTarget, type RequestTarget } from './request-target.js';
import { isApiPath, parseResourcePath, pathTokens, type ResourcePath } from './router.js';
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

function sendText(res: ServerResponse, code: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** Go's http.NotFound: kube-apiserver's answer for a path none of its handlers serves. */
function sendPageNotFound(res: ServerResponse): void {
  sendText(res, 404, '404 page not found\n', { 'X-Content-Type-Options': 'nosniff' });
}

/** What Go's server sends (and then closes) for a request target it cannot parse, before any handler. */
function sendMalformedTarget(res: ServerResponse): void {
  sendText(res, 400, '400 Bad Request', { Connection: 'close' });
}

/** Request counters over HTTP (for a server in another process): GET reads, DELETE resets. */
export const STATS_PATH = '/debug/api-stats';

function serveStats(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse): true {
  if (req.method === 'DELETE') deps.stats.reset();
  else if (req.method !== 'GET') throw new MethodNotAllowedError();
  sendJson(res, 200, deps.stats.snapshot(deps.hub.activeWatches()));
  return true;
}

const HEALTH_PATHS = new Set(['/healthz', '/livez', '/readyz', '/healthz/ping', '/livez/ping', '/readyz/ping']);

/** /version, /api, /api/{v}, /apis, /apis/{g}, /apis/{g}/{v} (trailing slashes allowed, as go-restful trims them). */
function discoveryDocument(deps: HandlerDeps, path: string): unknown {
  if (!/^\/(version|api|apis)(\/|$)/.test(path)) return undefined;
  const strategies = deps.registry.strategies;
  const t = pathTokens(path);
  if (t.length === 1) {
    if (t[0] === 'version') return SERVER_VERSION;
    return t[0] === 'api' ? apiVersions(deps.serverAddress()) : apiGroupList(strategies);
  }
  if (t[0] === 'api' && t.length === 2) return apiResourceList(strategies, '', t[1]);
  if (t[0] === 'apis' && t.length === 2) return apiGroupDocument(strategies, t[1]);
  if (t[0] === 'apis' && t.length === 3) return apiResourceList(strategies, t[1], t[2]);
  return undefined;
}

const openApiDocuments = new WeakMap<Registry, OpenApiDocuments>();

function openApiOf(registry: Registry): OpenApiDocuments {
  let docs = openApiDocuments.get(registry);
  if (!docs) openApiDocuments.set(registry, (docs = new OpenApiDocuments(registry.strategies)));
  return docs;
}

/** /openapi/v2, /openapi/v3 and its documents; any other path under /openapi/v3/ is an empty 404. */
function serveOpenApi(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse, target: RequestTarget): boolean {
  const path = target.path;
  if (path === '/openapi/v2') {
    serveOpenApiV2(openApiOf(deps.registry), req, res);
    return true;
  }
  if (path !== '/openapi/v3' && !path.startsWith('/openapi/v3/')) return false;
  if (!serveOpenApiV3(openApiOf(deps.registry), req, res, path, target.query.get('hash'))) {
    res.writeHead(404, { 'Content-Length': '0' });
    res.end();
  }
  return true;
}

function sendDocument(req: IncomingMessage, res: ServerResponse, body: unknown): true {
  if (req.method !== 'GET') throw new MethodNotAllowedError();
  sendJson(res, 200, body);
  return true;
}

/** Health, version, discovery and OpenAPI, each at its exact path. Returns false for any other path. */
function serveNonResource(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse, path: string): boolean {
  if (HEALTH_PATHS.has(path)) {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new MethodNotAllowedError();
    sendText(res, 200, 'ok');
    return true;
  }
  if (path === STATS_PATH) return serveStats(deps, req, res);
  const body = discoveryDocument(deps, path);
  return body === undefined ? false : sendDocument(req, res, body);
}

/**
 * go-restful serves /version/..., /api/... and /apis/{group}/... of the groups served here; its
 * 404 is a JSON Status. Everything else falls through to Go's plain-text 404.
 */
function isGoRestfulPath(deps: HandlerDeps, path: string): boolean {
  if (path.startsWith('/version/') || (isApiPath(path) && !path.startsWith('/apis'))) return true;
  const t = pathTokens(path);
  return t[0] === 'apis' && deps.registry.strategies.some((s) => s.info.group === t[1]);
}

function resourceLabel(route: ResourcePath): string {
  const base = route.group ? `${route.plural}.${route.group}` : route.plural;
  return route.subresource ? `${base}/${route.subresource}` : base;
}

async function serve(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse, target: RequestTarget, rec: RequestRecord): Promise<void> {
  const path = target.path;
  if (!isOpenPath(path) && !hasValidToken(req, deps.token)) throw new UnauthorizedError();
  if (serveOpenApi(deps, req, res, target) || serveNonResource(deps, req, res, path)) return;
  const route = parseResourcePath(path);
  const strategy = route && deps.registry.strategyFor(route.group, route.version, route.plural);
  if (!route || !strategy) {
    if (isGoRestfulPath(deps, path)) throw pathNotFound();
    return sendPageNotFound(res);
  }
  rec.resource = resourceLabel(route);
  rec.namespace = route.namespace;
  rec.name = route.name;
  const verb = checkRoute(strategy, route, verbOf(req.method ?? 'GET', route, target.query));
  rec.verb = verb;
  await serveResource({ req, res, params: target.query, route, strategy }, verb, deps.registry, deps.hub);
}

export function createRequestHandler(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const rec: RequestRecord = { verb: (req.method ?? '').toLowerCase(), resource: '', code: 0 };
    let target: RequestTarget;
    try {
      target = parseRequestTarget(req.url ?? '/');
    } catch (err) {
      if (!(err instanceof MalformedRequestTargetError)) throw err;
      sendMalformedTarget(res);
      rec.code = 400;
      deps.stats.record(rec, 'BadRequest');
      deps.log.debug({ verb: rec.verb, target: req.url, code: 400 }, err.message);
      return;
    }
    let reason: string | undefined;
    serve(deps, req, res, target, rec)
      .catch((err: unknown) => {
        const { code, body } = statusResponseFor(err, deps.log);
        reason = statusOf(err).reason;
        if (res.headersSent) res.end();
        else sendJson(res, code, body);
      })
      .finally(() => {
        rec.code = res.statusCode;
        deps.stats.record(rec, reason);
        deps.log.debug({ verb: rec.verb, path: target.rawPath, code: rec.code }, 'request');
      });
  };
}
