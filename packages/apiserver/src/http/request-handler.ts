/**
 * The HTTP entry point: authentication, non-resource paths (health, version, discovery,
 * OpenAPI) and resource paths, error mapping, and request accounting.
 */
import type { ResourceStrategy } from '../resources/strategy.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { InternalError, MethodNotAllowedError, UnauthorizedError, statusOf } from '@pv-controller/kube/errors.js';
import { hasValidToken, isOpenPath } from './auth.js';
import { ADMIN, allows, forbidden, requestIdentity, type Attributes, type Identity } from '../api/identity.js';
import { aggregatedDiscoveryDocument, negotiateDiscovery, sendAggregatedDiscovery } from '../endpoints/aggregated-discovery.js';
import { apiGroupDocument, apiGroupList, apiResourceList, apiVersions, SERVER_VERSION, type ServedResource } from '../endpoints/discovery.js';
import { pathNotFound, statusResponseFor } from '../api/errors.js';
import { sendJson } from '../api/http-io.js';
import { OpenApiDocuments, serveOpenApiV2, serveOpenApiV3 } from '../endpoints/openapi/serve.js';
import type { Registry } from '../registry/registry.js';
import { checkRoute, serveResource, verbOf } from '../endpoints/resource-handler.js';
import { MalformedRequestTargetError, parseRequestTarget, type RequestTarget } from '../api/request-target.js';
import { healthPath, healthTargetExists, serveHealth, type HealthCheck } from './health.js';
import { nonResourceRequestLabels, resourceRequestLabels, type ApiServerMetrics } from './metrics.js';
import { isReviewRoute, reviewResources, serveReview } from '../endpoints/reviews.js';
import { isApiPath, parseResourcePath, pathTokens, type ResourcePath } from '../api/router.js';
import { sendStatus } from '../protobuf/respond.js';
import type { RequestRecord, RequestStats } from './stats.js';
import type { WatchHub } from '../endpoints/watch.js';

interface HandlerDeps {
  registry: Registry;
  hub: WatchHub;
  stats: RequestStats;
  token: string;
  log: Logger;
  /** host:port clients reach us on (for /api's serverAddressByClientCIDRs). */
  serverAddress: () => string;
  /** /metrics; absent: /metrics is not served. */
  metrics?: ApiServerMetrics;
  /** The checks of /healthz, /livez and /readyz (none: each answers "ok"). */
  healthChecks?: HealthCheck[];
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
const STATS_PATH = '/debug/api-stats';

function serveStats(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse): true {
  if (req.method === 'DELETE') deps.stats.reset();
  else if (req.method !== 'GET') throw new MethodNotAllowedError();
  sendJson(res, 200, deps.stats.snapshot(deps.hub.activeWatches()));
  return true;
}


/** Everything discovery lists: the stored resources and the review resources. */
function servedResources(deps: HandlerDeps): ServedResource[] {
  return [...deps.registry.strategies, ...reviewResources];
}

/** /version, /api, /api/{v}, /apis, /apis/{g}, /apis/{g}/{v} (trailing slashes allowed, as go-restful trims them). */
function discoveryDocument(deps: HandlerDeps, path: string): unknown {
  if (!/^\/(version|api|apis)(\/|$)/.test(path)) return undefined;
  const strategies = servedResources(deps);
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

/** The documents of the resources served now: built again once the registry serves others (custom resources). */
const openApiDocuments = new WeakMap<Registry, { served: readonly ResourceStrategy[]; docs: OpenApiDocuments }>();

function openApiOf(registry: Registry): OpenApiDocuments {
  const known = openApiDocuments.get(registry);
  if (known?.served === registry.strategies) return known.docs;
  const docs = new OpenApiDocuments(registry.strategies);
  openApiDocuments.set(registry, { served: registry.strategies, docs });
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

function serveMetrics(metrics: ApiServerMetrics, req: IncomingMessage, res: ServerResponse): true {
  if (req.method !== 'GET') throw new MethodNotAllowedError();
  void metrics.text().then(
    (text) => sendText(res, 200, text, { 'Content-Type': metrics.contentType() }),
    () => sendText(res, 500, 'metrics could not be gathered\n'),
  );
  return true;
}

function sendDocument(req: IncomingMessage, res: ServerResponse, body: unknown): true {
  if (req.method !== 'GET') throw new MethodNotAllowedError();
  sendJson(res, 200, body);
  return true;
}

/** Health, version, discovery and OpenAPI, each at its exact path. Returns false for any other path. */
function serveNonResource(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse, path: string, params: URLSearchParams): boolean {
  const health = healthPath(path);
  if (health) {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new MethodNotAllowedError();
    if (!serveHealth(res, health, deps.healthChecks ?? [], params)) sendPageNotFound(res);
    return true;
  }
  if (path === '/metrics' && deps.metrics) return serveMetrics(deps.metrics, req, res);
  if (path === STATS_PATH) return serveStats(deps, req, res);
  return serveDiscovery(deps, req, res, path);
}

/** Discovery in the form the Accept header asks for: aggregated on /api and /apis, else the legacy documents. */
function serveDiscovery(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse, path: string): boolean {
  const body = discoveryDocument(deps, path);
  if (body === undefined) return false;
  if (req.method !== 'GET') throw new MethodNotAllowedError();
  const t = pathTokens(path);
  const root = t.length === 1 && (t[0] === 'api' || t[0] === 'apis') ? t[0] : undefined;
  if (t[0] !== 'version' && negotiateDiscovery(req.headers.accept, root !== undefined) === 'aggregated') {
    sendAggregatedDiscovery(req, res, aggregatedDiscoveryDocument(servedResources(deps), root!));
    return true;
  }
  return sendDocument(req, res, body);
}

/**
 * go-restful serves /version/..., /api/... and /apis/{group}/... of the groups served here; its
 * 404 is a JSON Status. Everything else falls through to Go's plain-text 404.
 */
function isGoRestfulPath(deps: HandlerDeps, path: string): boolean {
  if (path.startsWith('/version/') || (isApiPath(path) && !path.startsWith('/apis'))) return true;
  const t = pathTokens(path);
  return t[0] === 'apis' && servedResources(deps).some((s) => s.info.group === t[1]);
}

function resourceLabel(route: ResourcePath): string {
  const base = route.group ? `${route.plural}.${route.group}` : route.plural;
  return route.subresource ? `${base}/${route.subresource}` : base;
}

/**
 * The dry_run label as kube-apiserver's cleanDryRun gives it: '' without the parameter, "All"
 * when every value is the one it supports, "invalid" otherwise — never the client's text, so the
 * label's values are a closed set however many distinct values clients send.
 */
function dryRunLabel(query: URLSearchParams): string {
  const values = query.getAll('dryRun');
  if (values.length === 0) return '';
  return values.every((v) => v === 'All') ? 'All' : 'invalid';
}

/** A health path is labelled only when it names a check the server has (a 404 is not counted by path). */
function servedHealthPath(deps: HandlerDeps, path: string): boolean {
  const target = healthPath(path);
  return target !== undefined && healthTargetExists(target, deps.healthChecks ?? []);
}

function authorize(identity: Identity, attrs: Attributes): void {
  if (!allows(identity, attrs)) throw forbidden(identity, attrs);
}

/** The verb of a request for a path, as kube-apiserver's request info names it (the method in lower case; HEAD is get). */
function nonResourceVerb(method: string | undefined): string {
  const m = (method ?? 'GET').toLowerCase();
  return m === 'head' ? 'get' : m;
}

async function serve(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse, target: RequestTarget, rec: RequestRecord): Promise<void> {
  const path = target.path;
  const open = isOpenPath(path);
  if (!open && !hasValidToken(req, deps.token)) throw new UnauthorizedError();
  // The admin, or the user a request impersonates (api/identity.ts: no RBAC objects, so the bootstrap policy).
  const identity = open ? ADMIN : requestIdentity(req.headers);
  const route = parseResourcePath(path);
  if (!route) authorize(identity, { kind: 'path', verb: nonResourceVerb(req.method), path });
  if (servedHealthPath(deps, path) || (path === '/metrics' && deps.metrics)) rec.labels = nonResourceRequestLabels(req.method ?? 'GET', path);
  if (serveOpenApi(deps, req, res, target) || serveNonResource(deps, req, res, path, target.query)) return;
  if (route && isReviewRoute(route)) {
    rec.resource = resourceLabel(route);
    if (req.method === 'POST') {
      rec.verb = 'create';
      rec.labels = resourceRequestLabels(route, 'create', req.headers['content-type'], dryRunLabel(target.query));
    }
    return await serveReview(req, res, route, target.query, { now: new Date(), identity });
  }
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
  rec.labels = resourceRequestLabels(route, verb, req.headers['content-type'], dryRunLabel(target.query));
  authorize(identity, {
    kind: 'resource',
    verb,
    group: route.group,
    resource: route.plural,
    ...(route.subresource ? { subresource: route.subresource } : {}),
    ...(route.namespace !== undefined ? { namespace: route.namespace } : {}),
    ...(route.name !== undefined ? { name: route.name } : {}),
  });
  if (verb === 'watch' && deps.metrics) res.once('close', deps.metrics.longRunningStarted(rec.labels));
  await serveResource({ req, res, params: target.query, route, strategy }, verb, deps.registry, deps.hub);
}

/**
 * Sends the Status for what a request threw. Should even that fail (a body too large to encode),
 * the client gets a fixed 500 and the failure is logged: an error answer never ends the process.
 */
function answerError(req: IncomingMessage, res: ServerResponse, err: unknown, log: Logger): void {
  const { code, body } = statusResponseFor(err, log);
  if (res.headersSent) {
    res.end();
    return;
  }
  try {
    sendStatus(req, res, code, body);
  } catch (sendErr) {
    log.error({ err: sendErr, code }, 'the error answer could not be encoded');
    if (res.headersSent) res.destroy();
    else sendJson(res, 500, new InternalError('the error answer could not be encoded').toStatus());
  }
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
    const startedAt = process.hrtime.bigint();
    const inflightDone = deps.metrics?.started(req.method ?? 'GET');
    let reason: string | undefined;
    serve(deps, req, res, target, rec)
      .catch((err: unknown) => {
        reason = statusOf(err).reason;
        answerError(req, res, err, deps.log);
      })
      .finally(() => {
        rec.code = res.statusCode;
        inflightDone?.();
        if (rec.labels) deps.metrics?.observe(rec.labels, rec.code, Number(process.hrtime.bigint() - startedAt) / 1e9);
        deps.stats.record(rec, reason);
        deps.log.debug({ verb: rec.verb, path: target.rawPath, code: rec.code }, 'request');
      });
  };
}
