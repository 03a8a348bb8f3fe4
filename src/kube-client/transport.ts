/**
 * The path every controller request takes: client-node's generated API classes (`core`,
 * `storage`, `coordination`) over one client-node Configuration whose default auth method is a
 * SharedAgentAuthentication (client-node's own credentials on every request, one keep-alive
 * agent per TLS identity) and whose HTTP library is node:http(s) (https-library.ts, in place of
 * node-fetch). `call` wraps each generated call with the client-side rate limiter
 * (--kube-api-qps/--kube-api-burst), per-verb request/409 counters and the one error mapping
 * (api-errors.ts). `request` sends a request by path through the same Configuration, auth,
 * agent and HTTP library, for resources this controller has no generated call in use for.
 */
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  createConfiguration,
  HttpMethod as ClientNodeHttpMethod,
  ServerConfiguration,
  StorageV1Api,
  type Configuration,
  type KubeConfig,
} from '@kubernetes/client-node';
import { errorFromClientNode, statusOfFailure, TransportError } from './api-errors.js';
import { TokenBucket } from './rate-limiter.js';
import { METHOD_OF_VERB, RequestCounters, type KubeVerb, type RequestObserver } from './request-counters.js';
import { nodeHttpLibrary } from './https-library.js';
import { SharedAgentAuthentication } from './shared-agent-auth.js';

export { apiErrorFrom, TransportError } from './api-errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestSpec {
  method: HttpMethod;
  verb: KubeVerb;
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** Names the request in error messages (default "METHOD path"). */
  what?: string;
}

export interface TransportOptions {
  qps: number;
  burst: number;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** Keep-alive sockets per host (default 64). */
  maxSockets?: number;
  userAgent?: string;
  /** Told of every request's outcome and latency (the controller's rest_client_* metrics). */
  observer?: RequestObserver;
}

export class RestTransport {
  readonly counters = new RequestCounters();
  readonly core: CoreV1Api;
  readonly storage: StorageV1Api;
  readonly coordination: CoordinationV1Api;
  private readonly limiter: TokenBucket;
  private readonly auth: SharedAgentAuthentication;
  private readonly config: Configuration;
  private readonly host: string;
  private readonly observer: RequestObserver | undefined;

  constructor(
    readonly kubeConfig: KubeConfig,
    opts: TransportOptions,
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new TransportError('kubeconfig has no current cluster');
    this.limiter = new TokenBucket(opts.qps, opts.burst);
    this.host = hostOf(cluster.server);
    this.observer = opts.observer;
    this.auth = new SharedAgentAuthentication(kubeConfig, opts);
    this.config = createConfiguration({
      baseServer: new ServerConfiguration(cluster.server.replace(/\/$/, ''), {}),
      authMethods: { default: this.auth },
      httpApi: nodeHttpLibrary(),
    });
    this.core = new CoreV1Api(this.config);
    this.storage = new StorageV1Api(this.config);
    this.coordination = new CoordinationV1Api(this.config);
  }

  /**
   * Runs one generated-API call: waits for the rate limiter, counts it under `verb` (409s and
   * errors too) and rethrows failures as ApiError / TransportError. `what` names the request in
   * error messages (e.g. "PUT PersistentVolume pv-1").
   */
  async call<T>(verb: KubeVerb, what: string, send: () => Promise<T>): Promise<T> {
    for (let retried = false; ; retried = true) {
      const wait = this.limiter.acquire();
      if (wait) await wait;
      const started = performance.now();
      try {
        const out = await send();
        this.counters.record(verb, 200);
        this.observe(verb, 200, started);
        return out;
      } catch (err) {
        const status = statusOfFailure(err);
        this.counters.record(verb, status);
        this.observe(verb, status, started);
        // Credentials are reused for a second: a 401 on reused ones that have since changed
        // (a token rotated in place) is retried once with the fresh ones.
        if (status === 401 && !retried && (await this.auth.refreshAfterUnauthorized())) continue;
        throw errorFromClientNode(err, what);
      }
    }
  }

  /** Sends one request by path; resolves to the parsed JSON body, throws ApiError on a non-2xx status. */
  request<T>(spec: RequestSpec): Promise<T> {
    return this.call(spec.verb, spec.what ?? `${spec.method} ${spec.path}`, () => this.sendByPath<T>(spec));
  }

  /** Requests waiting for the client-side rate limiter. */
  throttled(): number {
    return this.limiter.waiting();
  }

  /** Keep-alive agents in use (one per TLS identity). */
  agentCount(): number {
    return this.auth.agentCount();
  }

  close(): void {
    this.auth.destroy();
  }

  private observe(verb: KubeVerb, code: number, started: number): void {
    this.observer?.onRequest(METHOD_OF_VERB[verb], this.host, code, (performance.now() - started) / 1000);
  }

  private async sendByPath<T>(spec: RequestSpec): Promise<T> {
    const ctx = this.config.baseServer.makeRequestContext(spec.path, ClientNodeHttpMethod[spec.method]);
    for (const [k, v] of Object.entries(spec.query ?? {})) {
      if (v !== undefined) ctx.setQueryParam(k, String(v));
    }
    ctx.setHeaderParam('Accept', 'application/json');
    if (spec.body !== undefined) {
      ctx.setHeaderParam('Content-Type', spec.contentType ?? 'application/json');
      ctx.setBody(JSON.stringify(spec.body));
    }
    await this.auth.applySecurityAuthentication(ctx);
    const res = await this.config.httpApi.send(ctx).toPromise();
    const text = await res.body.text();
    if (res.httpStatusCode < 200 || res.httpStatusCode >= 300) {
      throw new ApiException(res.httpStatusCode, `${spec.method} ${spec.path}`, text, res.headers);
    }
    return (text.length > 0 ? JSON.parse(text) : undefined) as T;
  }
}

/** The API server's host:port as client-go's `host` label has it (the URL's host). */
function hostOf(server: string): string {
  try {
    return new URL(server).host;
  } catch {
    return server;
  }
}
