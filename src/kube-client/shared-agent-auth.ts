/**
 * The `authMethods.default` of the controller's client-node Configuration: credentials come from
 * client-node's own `KubeConfig.applySecurityAuthentication` on every request (token files, exec
 * plugins, in-cluster service account, client certificates, refreshes: unchanged), then the
 * per-call https.Agent that client-node 1.4.0 builds (`createAgent`, private) is swapped for one
 * cached keep-alive agent per TLS identity, so connections are reused instead of handshaking
 * TLS on every call. Also stamps the User-Agent and a per-request deadline.
 *
 * Measured in one run (bench/client/put-transports.ts: PUT of a PV over TLS to the embedded
 * server in a child process, memory storage; 9 interleaved repetitions; median of the
 * same-repetition ratios to `raw`, a bare https keep-alive client doing the same JSON work by
 * hand; 2 shared, busy cores, so ratios only):
 *                          wall ms/PUT        client CPU/PUT
 *   1 in flight   shared agent   1.27×             1.76×
 *                 per-call agent 7.9×              9.8×
 *   16 in flight  shared agent   1.29×             1.89×
 *                 per-call agent 8.6×             12.9×
 * Where the shared path's extra client CPU goes (--cpu-prof, share of its busy time): node-fetch
 * (client-node's HTTP library) 26 %, ObjectSerializer 8 %, generated request/response plumbing
 * 6 %, KubeConfig.applySecurityAuthentication 4 % (incl. the throw-away per-call agent), plain
 * JSON conversion 2 %. This file's own work is ~3 µs a request: the identity check compares the
 * last TLS fields before hashing, and deadlines share one signal per second (AbortSignal.timeout
 * cost ~18 µs each).
 */
import { createHash, type Hash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import { HttpMethod, RequestContext, type KubeConfig, type SecurityAuthentication } from '@kubernetes/client-node';

export interface SharedAgentOptions {
  /** Keep-alive sockets per host (default 64). */
  maxSockets?: number;
  /** Per-request deadline (default 30 s); 0 disables it. */
  timeoutMs?: number;
  userAgent?: string;
}

/** Agents kept at most (a new identity appears only when credentials rotate). */
const MAX_AGENTS = 8;

/**
 * How long credentials client-node applied are reused. Resolving them per request (headers,
 * TLS options and a throw-away https.Agent built by client-node) costs ~5% of the controller's
 * CPU while binding; a token rotated in place is picked up after at most this long, or at once when
 * the server answers 401 (see refreshAfterUnauthorized).
 */
const CREDENTIALS_REUSE_MS = 1000;

interface AppliedCredentials {
  headers: Record<string, string>;
  agent: http.Agent | undefined;
  until: number;
}

/** The TLS options that decide which server certificates are trusted and who we are. */
const IDENTITY_FIELDS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'servername', 'rejectUnauthorized'] as const;

export class SharedAgentAuthentication implements SecurityAuthentication {
  private readonly agents = new Map<string, http.Agent>();
  /** The identity fields last seen and their agent: the common case skips hashing. */
  private last: { fields: unknown[]; agent: http.Agent } | undefined;
  private readonly deadlines: DeadlineSignals | undefined;
  private applied: AppliedCredentials | undefined;
  private resolving: Promise<AppliedCredentials> | undefined;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly opts: SharedAgentOptions = {},
  ) {
    const timeoutMs = opts.timeoutMs ?? 30_000;
    this.deadlines = timeoutMs > 0 ? new DeadlineSignals(timeoutMs) : undefined;
  }

  getName(): string {
    return 'kubeconfig credentials over shared keep-alive agents';
  }

  async applySecurityAuthentication(context: RequestContext): Promise<void> {
    const credentials = await this.credentials();
    for (const [name, value] of Object.entries(credentials.headers)) context.setHeaderParam(name, value);
    if (credentials.agent) context.setAgent(credentials.agent);
    context.setHeaderParam('User-Agent', this.opts.userAgent ?? 'pv-controller');
    if (this.deadlines && !context.getSignal()) context.setSignal(this.deadlines.current());
  }

  /**
   * After a 401: drops the reused credentials and resolves them again. True when the request
   * used reused credentials and the fresh ones differ (a rotated token): worth one retry. False
   * otherwise, so wrong credentials are not sent twice.
   */
  async refreshAfterUnauthorized(): Promise<boolean> {
    const used = this.applied;
    this.applied = undefined;
    if (!used) return false;
    const fresh = await this.credentials();
    return !sameValue(Object.entries(used.headers).sort(), Object.entries(fresh.headers).sort()) || used.agent !== fresh.agent;
  }

  /** client-node's credentials for the current user (reused for CREDENTIALS_REUSE_MS). */
  private credentials(): Promise<AppliedCredentials> {
    if (this.applied && performance.now() < this.applied.until) return Promise.resolve(this.applied);
    this.resolving ??= this.resolveCredentials().finally(() => (this.resolving = undefined));
    return this.resolving;
  }

  private async resolveCredentials(): Promise<AppliedCredentials> {
    const cluster = this.kubeConfig.getCurrentCluster();
    const scratch = new RequestContext(cluster?.server ?? 'https://localhost', HttpMethod.GET);
    await this.kubeConfig.applySecurityAuthentication(scratch);
    const perCall = scratch.getAgent();
    // Proxy agents (cluster.proxyUrl) speak the proxy protocol: keep client-node's.
    const agent = perCall && !cluster?.proxyUrl ? this.agentLike(perCall) : perCall;
    const applied = { headers: { ...scratch.getHeaders() }, agent, until: performance.now() + CREDENTIALS_REUSE_MS };
    this.applied = applied;
    return applied;
  }

  /** The cached keep-alive agent with the same TLS identity as `perCall`. */
  agentLike(perCall: http.Agent): http.Agent {
    const fields = identityFields(perCall);
    if (this.last && sameValue(fields, this.last.fields)) return this.last.agent;
    const agent = this.agentFor(identityKey(perCall), perCall);
    this.last = { fields, agent };
    return agent;
  }

  private agentFor(key: string, perCall: http.Agent): http.Agent {
    const cached = this.agents.get(key);
    if (cached) return cached;
    const common = { keepAlive: true, maxSockets: this.opts.maxSockets ?? 64, scheduling: 'lifo' as const };
    const agent =
      perCall instanceof https.Agent ? new https.Agent({ ...perCall.options, ...common }) : new http.Agent(common);
    if (this.agents.size >= MAX_AGENTS) {
      // Oldest identity: its idle sockets are unref'd and closed by the server's idle timeout.
      this.agents.delete(this.agents.keys().next().value as string);
    }
    this.agents.set(key, agent);
    return agent;
  }

  /** Agents currently cached (one per TLS identity seen). */
  agentCount(): number {
    return this.agents.size;
  }

  /** Closes every cached agent's sockets. */
  destroy(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
    this.last = undefined;
    this.applied = undefined;
  }
}

/**
 * Request deadlines without a timer per request (AbortSignal.timeout costs ~18 µs a call): the
 * requests started within one second share a signal that aborts `timeoutMs` after that second
 * ends, so each request gets between `timeoutMs` and `timeoutMs` + 1 s.
 */
class DeadlineSignals {
  private bucket: { signal: AbortSignal; endsAt: number } | undefined;

  constructor(private readonly timeoutMs: number) {}

  current(): AbortSignal {
    const now = performance.now();
    if (this.bucket && now < this.bucket.endsAt) return this.bucket.signal;
    const controller = new AbortController();
    // Every request of the second listens on it (node-fetch removes its listener when done).
    setMaxListeners(0, controller.signal);
    const endsAt = now + 1000;
    const fire = (): void => controller.abort(new DOMException(`no answer within ${this.timeoutMs} ms`, 'TimeoutError'));
    setTimeout(fire, this.timeoutMs + 1000).unref();
    this.bucket = { signal: controller.signal, endsAt };
    return controller.signal;
  }
}

function identityFields(agent: http.Agent): unknown[] {
  if (!(agent instanceof https.Agent)) return ['http'];
  const options = agent.options as Record<string, unknown>;
  return IDENTITY_FIELDS.map((field) => options[field]);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  return false;
}

/** Same ca/cert/key/pfx/passphrase/servername/rejectUnauthorized ⇒ same key. */
export function identityKey(agent: http.Agent): string {
  if (!(agent instanceof https.Agent)) return 'http';
  const hash = createHash('sha256');
  const options = agent.options as Record<string, unknown>;
  for (const field of IDENTITY_FIELDS) {
    hash.update(`${field}:`);
    feed(hash, options[field]);
  }
  return `https:${hash.digest('base64')}`;
}

/** Hashes a TLS option value: strings, Buffers, arrays of them, or {buf|pem, passphrase} objects. */
function feed(hash: Hash, value: unknown): void {
  if (value === undefined || value === null) {
    hash.update('\u0000-');
  } else if (typeof value === 'string' || Buffer.isBuffer(value)) {
    hash.update(`\u0000${Buffer.byteLength(value)}:`);
    hash.update(value);
  } else if (Array.isArray(value)) {
    hash.update(`\u0000[${value.length}`);
    for (const item of value) feed(hash, item);
  } else if (typeof value === 'object') {
    for (const k of Object.keys(value).sort()) {
      hash.update(`\u0000${k}=`);
      feed(hash, (value as Record<string, unknown>)[k]);
    }
  } else {
    hash.update(`\u0000${String(value)}`);
  }
}
