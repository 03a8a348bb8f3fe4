/**
 * /healthz, /livez and /readyz as kube-apiserver answers them: "ok", or with `?verbose` one
 * `[+]name ok` line per check and "<endpoint> check passed"; each check also at
 * `/<endpoint>/<name>`; `?exclude=<name>` leaves a check out. The checks are this server's own:
 * ping, log, and storage (where kube-apiserver checks etcd); readyz adds shutdown, which fails
 * once the server is stopping.
 */
import type { ServerResponse } from 'node:http';

export interface HealthCheck {
  name: string;
  /** undefined when healthy, else why not. */
  check(): string | undefined;
}

type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

const ENDPOINTS = new Set<string>(['healthz', 'livez', 'readyz']);

function send(res: ServerResponse, code: number, text: string, nosniff: boolean): void {
  res.writeHead(code, {
    'Cache-Control': 'no-cache, private',
    'Content-Type': 'text/plain; charset=utf-8',
    ...(nosniff ? { 'X-Content-Type-Options': 'nosniff' } : {}),
    'Content-Length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** The endpoint and check a path names ("/readyz" → readyz, all; "/livez/ping" → livez, ping); undefined for other paths. */
export function healthPath(path: string): { endpoint: HealthEndpoint; check?: string } | undefined {
  const parts = path.split('/');
  if (parts[0] !== '' || !ENDPOINTS.has(parts[1]) || parts.length > 3) return undefined;
  return { endpoint: parts[1] as HealthEndpoint, check: parts.length === 3 ? parts[2] : undefined };
}

type HealthTarget = { endpoint: HealthEndpoint; check?: string };

const applicableChecks = (target: HealthTarget, checks: HealthCheck[]): HealthCheck[] =>
  checks.filter((c) => c.name !== 'shutdown' || target.endpoint === 'readyz');

/** Whether the server serves `target`: an endpoint, or one of the endpoint's checks. */
export function healthTargetExists(target: HealthTarget, checks: HealthCheck[]): boolean {
  return target.check === undefined || applicableChecks(target, checks).some((c) => c.name === target.check);
}

/** Serves a health path; false when it names a check that does not exist (the caller's 404). */
export function serveHealth(res: ServerResponse, target: HealthTarget, checks: HealthCheck[], params: URLSearchParams): boolean {
  const applicable = applicableChecks(target, checks);
  if (target.check !== undefined) {
    const one = applicable.find((c) => c.name === target.check);
    if (!one) return false;
    const problem = one.check();
    send(res, problem === undefined ? 200 : 500, problem === undefined ? 'ok' : `internal server error: ${problem}\n`, problem !== undefined);
    return true;
  }
  const excluded = new Set(params.getAll('exclude'));
  const lines: string[] = [];
  let failed = false;
  for (const c of applicable) {
    if (excluded.has(c.name)) {
      lines.push(`[+]${c.name} excluded: ok`);
      continue;
    }
    const problem = c.check();
    failed ||= problem !== undefined;
    lines.push(problem === undefined ? `[+]${c.name} ok` : `[-]${c.name} failed: reason withheld`);
  }
  const verbose = params.has('verbose');
  if (!failed && !verbose) {
    send(res, 200, 'ok', true);
    return true;
  }
  const last = failed ? `${target.endpoint} check failed` : `${target.endpoint} check passed`;
  send(res, failed ? 500 : 200, `${lines.join('\n')}\n${last}\n`, true);
  return true;
}
