/**
 * A fault-injecting HTTPS proxy between a controller and its API server. It terminates TLS with
 * its own certificate, checks its own bearer token, and forwards each request with the upstream
 * kubeconfig's credentials, so the controller under test is configured only by the kubeconfig
 * the proxy writes. A request may instead suffer a fault: a scripted one (the next N requests
 * matching a pattern, for the upstream fault-injection rows) or a random one drawn from a seeded
 * generator (the chaos run). The answers are kube-apiserver's Status bodies for that code.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Agent, createServer, request as httpsRequest, type RequestOptions, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { writeKubeconfig } from '@pv-controller/apiserver/http/kubeconfig.js';
import { loadOrCreateTls } from '@pv-controller/apiserver/http/tls.js';
import { type ApiFaultKind, applicableFaults, faultAnswer, isWatch, type ProxiedRequest } from './proxy-faults.js';
import type { Prng } from './prng.js';

export { API_FAULT_KINDS, type ApiFaultKind, type ProxiedRequest } from './proxy-faults.js';

/** Which requests a scripted fault applies to; every given field must match. */
export interface RequestMatch {
  method?: string;
  /** The exact path, or a pattern tested against it. */
  path?: string | RegExp;
  watch?: boolean;
}

/** Random faults: each request suffers one with probability `rate`, its kind drawn by `weights`. */
export interface RandomFaults {
  rate: number;
  random: Prng;
  weights?: Partial<Record<ApiFaultKind, number>>;
}

export interface FaultProxyOptions {
  /** Where the proxy's certificate and kubeconfig go. */
  dir: string;
  /** The API server and credentials requests are forwarded with. */
  upstream: KubeConfig;
  /** How long a `timeout` fault holds a request before dropping it (default 60 s). */
  holdMs?: number;
}

interface ScriptedFault {
  match: RequestMatch;
  kind: ApiFaultKind;
  left: number;
}

/** Lifts a fault that was injected without a count. */
export interface FaultHandle {
  lift(): void;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'authorization']);

function matches(m: RequestMatch, r: ProxiedRequest): boolean {
  if (m.method !== undefined && m.method !== r.method) return false;
  if (m.watch !== undefined && m.watch !== r.watch) return false;
  if (m.path === undefined) return true;
  return typeof m.path === 'string' ? m.path === r.path : m.path.test(r.path);
}

export class FaultProxy {
  /** Faults suffered, by kind. */
  readonly counts = new Map<ApiFaultKind, number>();
  /** Requests seen, and forwarded requests the upstream could not be reached for. */
  requests = 0;
  upstreamErrors = 0;
  private readonly scripted: ScriptedFault[] = [];
  private randomFaults: RandomFaults | undefined;
  private readonly held = new Set<IncomingMessage>();
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 128 });

  private constructor(
    private readonly server: Server,
    private readonly upstream: URL,
    private readonly upstreamTls: RequestOptions,
    private readonly token: string,
    private readonly holdMs: number,
    readonly kubeconfigPath: string,
    readonly url: string,
  ) {}

  static async start(opts: FaultProxyOptions): Promise<FaultProxy> {
    await mkdir(opts.dir, { recursive: true });
    const tls = await loadOrCreateTls(opts.dir, '127.0.0.1');
    const cluster = opts.upstream.getCurrentCluster();
    if (!cluster) throw new Error('the upstream kubeconfig has no current cluster');
    const upstreamTls: RequestOptions = {};
    await opts.upstream.applyToHTTPSOptions(upstreamTls);
    const token = randomBytes(24).toString('hex');
    const started: { proxy?: FaultProxy } = {};
    const server = createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => started.proxy?.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const kubeconfigPath = join(opts.dir, 'kubeconfig');
    await writeKubeconfig(kubeconfigPath, url, tls.caPem, token);
    started.proxy = new FaultProxy(server, new URL(cluster.server), upstreamTls, token, opts.holdMs ?? 60_000, kubeconfigPath, url);
    return started.proxy;
  }

  /** The next `times` requests matching `match` suffer `kind` (after any queued before). */
  inject(match: RequestMatch, kind: ApiFaultKind, times = 1): void {
    this.scripted.push({ match, kind, left: times });
  }

  /** Every request matching `match` suffers `kind` until the handle is lifted. */
  injectUntilLifted(match: RequestMatch, kind: ApiFaultKind): FaultHandle {
    const fault: ScriptedFault = { match, kind, left: Infinity };
    this.scripted.push(fault);
    return { lift: () => void (fault.left = 0) };
  }

  /** Starts (or, with undefined, stops) random faults. */
  setRandomFaults(faults: RandomFaults | undefined): void {
    this.randomFaults = faults;
  }

  /** How many faults of `kind` were injected so far. */
  count(kind: ApiFaultKind): number {
    return this.counts.get(kind) ?? 0;
  }

  totalFaults(): number {
    return [...this.counts.values()].reduce((sum, n) => sum + n, 0);
  }

  async stop(): Promise<void> {
    this.randomFaults = undefined;
    for (const req of this.held) req.socket.destroy();
    this.server.closeAllConnections();
    this.agent.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.requests++;
    if (req.headers.authorization !== `Bearer ${this.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }));
      return;
    }
    const url = new URL(req.url ?? '/', 'https://proxy.invalid');
    const proxied: ProxiedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, watch: isWatch(url) };
    const kind = this.faultFor(proxied);
    if (kind === undefined) return this.forward(req, res);
    this.counts.set(kind, this.count(kind) + 1);
    this.suffer(kind, proxied, req, res);
  }

  private faultFor(r: ProxiedRequest): ApiFaultKind | undefined {
    const scripted = this.scripted.find((f) => f.left > 0 && matches(f.match, r));
    if (scripted) {
      scripted.left--;
      return scripted.kind;
    }
    const random = this.randomFaults;
    if (!random || !random.random.chance(random.rate)) return undefined;
    const weights: Partial<Record<ApiFaultKind, number>> = {};
    for (const kind of applicableFaults(r)) weights[kind] = random.weights?.[kind] ?? 1;
    return random.random.weighted(weights as Record<ApiFaultKind, number>);
  }

  private suffer(kind: ApiFaultKind, r: ProxiedRequest, req: IncomingMessage, res: ServerResponse): void {
    switch (kind) {
      case 'reset':
        req.socket.destroy();
        return;
      case 'timeout':
        this.hold(req, res);
        return;
      case 'slow':
        setTimeout(() => this.forward(req, res), this.randomFaults?.random.int(200, 1500) ?? 500);
        return;
      case 'lostAnswer':
        this.forward(req, res, { dropAnswer: true });
        return;
      case 'watchCut':
        this.forward(req, res, { cutAfterChunks: this.randomFaults?.random.int(1, 4) ?? 1 });
        return;
      default: {
        const answer = faultAnswer(kind, r);
        req.resume();
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      }
    }
  }

  /** Keeps the request unanswered until the client gives up (or `holdMs` passes). */
  private hold(req: IncomingMessage, res: ServerResponse): void {
    req.resume();
    this.held.add(req);
    const timer = setTimeout(() => req.socket.destroy(), this.holdMs);
    res.once('close', () => {
      clearTimeout(timer);
      this.held.delete(req);
    });
  }

  private forward(req: IncomingMessage, res: ServerResponse, how: { dropAnswer?: boolean; cutAfterChunks?: number } = {}): void {
    const headers: OutgoingHttpHeaders = { ...(this.upstreamTls.headers as OutgoingHttpHeaders | undefined) };
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    const upstreamReq = httpsRequest({
      ...this.upstreamTls,
      agent: this.agent,
      host: this.upstream.hostname,
      port: this.upstream.port,
      method: req.method,
      path: req.url,
      headers,
    });
    upstreamReq.on('error', () => {
      this.upstreamErrors++;
      req.socket.destroy();
    });
    upstreamReq.on('response', (upstreamRes) => {
      if (how.dropAnswer) {
        upstreamRes.resume();
        upstreamRes.once('end', () => req.socket.destroy());
        return;
      }
      const out: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(upstreamRes.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
      res.writeHead(upstreamRes.statusCode ?? 502, out);
      res.flushHeaders();
      let chunks = 0;
      upstreamRes.on('data', (chunk: Buffer) => {
        if (how.cutAfterChunks !== undefined && ++chunks >= how.cutAfterChunks) {
          // Half an event, then the connection is gone: the client must resume from its last resourceVersion.
          res.write(chunk.subarray(0, Math.max(1, chunk.length >> 1)));
          upstreamRes.destroy();
          req.socket.destroy();
          return;
        }
        res.write(chunk);
      });
      upstreamRes.on('end', () => res.end());
      upstreamRes.on('error', () => req.socket.destroy());
    });
    res.once('close', () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });
    req.pipe(upstreamReq);
  }
}
