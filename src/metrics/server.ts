/**
 * The controller's small HTTP server on `--metrics-bind-address` (default 127.0.0.1:10258):
 * - `/metrics`: the Prometheus text exposition of the controller's own Registry;
 * - `/healthz` (and `/livez`): the process is alive and its event loop answers;
 * - `/readyz`: every readiness check passes (caches synced; when electing, leading or standing
 *   by cleanly).
 * Health endpoints answer like kube components: `ok` when all pass, otherwise 503 with one line
 * per check (`[+]name ok` / `[-]name failed: reason`); `?verbose` lists the checks on success too.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';

/** A named check: returns undefined when it passes, else why it fails. */
export interface HealthCheck {
  name: string;
  check(): string | undefined;
}

export interface MetricsRenderer {
  render(): Promise<{ contentType: string; body: string }>;
}

export interface MetricsServerOptions {
  /** host:port; port 0 picks a free port; an empty host listens on every interface. */
  listen: string;
  metrics: MetricsRenderer;
  /** Checks behind /healthz in addition to the built-in `ping`. */
  liveness?: HealthCheck[];
  readiness: HealthCheck[];
  logger?: Logger;
}

export interface RunningMetricsServer {
  /** e.g. http://127.0.0.1:10258 */
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

export class BindAddressError extends Error {
  constructor(address: string) {
    super(`metrics bind address must be host:port, got "${address}"`);
    this.name = 'BindAddressError';
  }
}

/** Splits `host:port` / `[v6]:port` / `:port`. */
export function parseBindAddress(address: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(address);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new BindAddressError(address);
  return { host: m[1] ?? m[2] ?? '', port };
}

export async function startMetricsServer(opts: MetricsServerOptions): Promise<RunningMetricsServer> {
  const { host, port } = parseBindAddress(opts.listen);
  const ping: HealthCheck = { name: 'ping', check: () => undefined };
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<void> | void> = {
    '/metrics': (_req, res) => serveMetrics(opts.metrics, res, opts.logger),
    '/healthz': (req, res) => serveHealth('healthz', [ping, ...(opts.liveness ?? [])], req, res),
    '/livez': (req, res) => serveHealth('livez', [ping, ...(opts.liveness ?? [])], req, res),
    '/readyz': (req, res) => serveHealth('readyz', opts.readiness, req, res),
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const route = routes[path];
    if (!route) return reply(res, 404, `404 page not found: ${path}\n`);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return reply(res, 405, 'method not allowed\n');
    }
    void Promise.resolve(route(req, res)).catch((err: unknown) => {
      opts.logger?.error({ path, err: err instanceof Error ? err.message : String(err) }, 'metrics server request failed');
      if (!res.headersSent) reply(res, 500, 'internal error\n');
      else res.destroy();
    });
  });
  await listen(server, host, port);
  const bound = (server.address() as AddressInfo).port;
  const urlHost = host === '' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  opts.logger?.info({ address: `${host}:${bound}` }, 'serving /metrics, /healthz and /readyz');
  let stopped: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${bound}`,
    port: bound,
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const done = (): void => {
      server.off('error', reject);
      resolve();
    };
    if (host === '') server.listen(port, done);
    else server.listen(port, host, done);
  });
}

async function serveMetrics(metrics: MetricsRenderer, res: ServerResponse, logger?: Logger): Promise<void> {
  const started = performance.now();
  const { contentType, body } = await metrics.render();
  res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(res.req.method === 'HEAD' ? undefined : body);
  logger?.trace({ ms: performance.now() - started, bytes: body.length }, 'metrics scraped');
}

/** kube-style health answer: `ok`, or one `[+]`/`[-]` line per check and a 503. */
function serveHealth(endpoint: string, checks: HealthCheck[], req: IncomingMessage, res: ServerResponse): void {
  const verbose = new URL(req.url ?? '/', 'http://localhost').searchParams.has('verbose');
  const results = checks.map((c) => ({ name: c.name, failure: runCheck(c) }));
  const failed = results.filter((r) => r.failure !== undefined);
  if (failed.length === 0 && !verbose) return reply(res, 200, 'ok');
  const lines = results.map((r) => (r.failure === undefined ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.failure}`));
  lines.push(failed.length === 0 ? `${endpoint} check passed` : `${endpoint} check failed`);
  reply(res, failed.length === 0 ? 200 : 503, `${lines.join('\n')}\n`);
}

function runCheck(c: HealthCheck): string | undefined {
  try {
    return c.check();
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function reply(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}
