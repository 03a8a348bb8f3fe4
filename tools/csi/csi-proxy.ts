/**
 * A delay and fault proxy between a CSI client (a provisioner under test) and a CSI driver, as
 * tools/chaos/proxy.ts is for the API: it listens on a unix socket and forwards every unary call
 * of CSI's Identity, Controller and Node services byte for byte to the driver's socket (the
 * messages are never decoded), unless a rule for that method says otherwise: delay the call
 * before forwarding it or after the driver answered, fail it with a gRPC code, or hold it (or the
 * driver's answer) until released. Rules change while it runs; held calls are counted so a
 * harness can wait for "the driver created the volume and the caller has not heard".
 */
import { EventEmitter } from 'node:events';
import { rmSync } from 'node:fs';
import {
  Client,
  credentials,
  Metadata,
  Server,
  ServerCredentials,
  status,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServiceError,
} from '@grpc/grpc-js';
import type { CsiFault, CsiRule } from './faults.js';
import { CSI_METHOD_PATHS, type CsiMethodName } from './methods.js';

export interface CsiProxyOptions {
  /** The unix socket path the proxy listens on (a stale file there is removed). */
  listen: string;
  /** The driver's unix socket path. */
  driver: string;
}

/** The result of forwarding: the driver's answer or its error. */
type Answer = { ok: true; body: Buffer } | { ok: false; error: Partial<ServiceError> };

interface HeldCall {
  method: CsiMethodName;
  /** 'before': not yet forwarded; 'after': the driver answered, the caller waits. */
  when: 'before' | 'after';
  release(): void;
  /** Answers the caller UNAVAILABLE without forwarding (the proxy is stopping). */
  abandon(): void;
}

const identity = (b: Buffer): Buffer => b;

function unixTarget(path: string): string {
  return path.startsWith('unix:') ? path : `unix:${path}`;
}

/** Request metadata a client may pass on; grpc-js sets the transport's own headers itself. */
function forwardedMetadata(from: Metadata): Metadata {
  const out = new Metadata();
  for (const [key, value] of Object.entries(from.getMap())) {
    if (key.startsWith('grpc-') || key.startsWith(':') || key === 'user-agent' || key === 'content-type' || key === 'te') continue;
    out.set(key, value);
  }
  return out;
}

export class CsiProxy {
  /** Calls seen, by method, faulted or not. */
  readonly calls = new Map<CsiMethodName, number>();
  private readonly rules = new Map<CsiMethodName, { fault: CsiFault; left: number }>();
  private readonly heldCalls = new Set<HeldCall>();
  private readonly events = new EventEmitter();
  private stopped = false;

  private constructor(
    private readonly server: Server,
    private readonly upstream: Client,
    readonly address: string,
  ) {}

  static async start(opts: CsiProxyOptions): Promise<CsiProxy> {
    rmSync(opts.listen, { force: true });
    const server = new Server();
    const upstream = new Client(unixTarget(opts.driver), credentials.createInsecure());
    const proxy = new CsiProxy(server, upstream, opts.listen);
    for (const [method, path] of CSI_METHOD_PATHS) {
      server.register(path, (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => proxy.handle(method, path, call, callback), identity, identity, 'unary');
    }
    await new Promise<void>((resolve, reject) => {
      server.bindAsync(unixTarget(opts.listen), ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve()));
    });
    return proxy;
  }

  /** Sets `method`'s rule (replacing any); with `times`, it lifts itself after that many calls. */
  setRule(rule: CsiRule): void {
    this.rules.set(rule.method, { fault: rule.fault, left: rule.times ?? Infinity });
  }

  /** Removes `method`'s rule (every rule without an argument); held calls stay held. */
  clearRule(method?: CsiMethodName): void {
    if (method === undefined) this.rules.clear();
    else this.rules.delete(method);
  }

  /** The rules in force, for display. */
  activeRules(): CsiRule[] {
    return [...this.rules].map(([method, r]) => ({ method, fault: r.fault, times: Number.isFinite(r.left) ? r.left : undefined }));
  }

  /** How many calls (of `method`, or all) are held now. */
  held(method?: CsiMethodName, when?: 'before' | 'after'): number {
    return [...this.heldCalls].filter((h) => (method === undefined || h.method === method) && (when === undefined || h.when === when)).length;
  }

  /** Lets held calls (of `method`, or all) go on: forwarded, or answered. Returns how many. */
  release(method?: CsiMethodName): number {
    const chosen = [...this.heldCalls].filter((h) => method === undefined || h.method === method);
    for (const h of chosen) {
      this.heldCalls.delete(h);
      h.release();
    }
    return chosen.length;
  }

  /** Resolves once at least `count` calls of `method` are held (`when`), or rejects at the deadline. */
  async waitForHeld(method: CsiMethodName, count: number, timeoutMs: number, when?: 'before' | 'after'): Promise<void> {
    if (this.held(method, when) >= count) return;
    await new Promise<void>((resolve, reject) => {
      const onHeld = (): void => {
        if (this.held(method, when) < count) return;
        clearTimeout(timer);
        this.events.off('held', onHeld);
        resolve();
      };
      const timer = setTimeout(() => {
        this.events.off('held', onHeld);
        reject(new Error(`fewer than ${count} ${method} call(s) held after ${timeoutMs} ms (${this.held(method)} held, ${this.calls.get(method) ?? 0} seen)`));
      }, timeoutMs);
      this.events.on('held', onHeld);
    });
  }

  /**
   * Stops listening; held calls are answered UNAVAILABLE, calls in flight get a second to finish
   * before their connections are cut, and the upstream connection is closed. Safe to call twice.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.rules.clear();
    for (const h of [...this.heldCalls]) h.abandon();
    this.heldCalls.clear();
    await new Promise<void>((resolve) => {
      const cut = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, 1000);
      this.server.tryShutdown(() => {
        clearTimeout(cut);
        resolve();
      });
    });
    this.upstream.close();
    rmSync(this.address, { force: true });
  }

  private ruleFor(method: CsiMethodName): CsiFault | undefined {
    const rule = this.rules.get(method);
    if (!rule) return undefined;
    if (--rule.left <= 0) this.rules.delete(method);
    return rule.fault;
  }

  private handle(method: CsiMethodName, path: string, call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>): void {
    this.calls.set(method, (this.calls.get(method) ?? 0) + 1);
    const fault = this.ruleFor(method);
    const answer = (a: Answer): void => (a.ok ? callback(null, a.body) : callback(a.error));
    const forward = (then: (a: Answer) => void): void => this.forward(path, call, then);
    if (fault === undefined) return forward(answer);
    switch (fault.kind) {
      case 'fail':
        return callback({ code: fault.code, details: fault.message ?? `injected by the CSI proxy: ${status[fault.code]}` });
      case 'delay':
        if (fault.when === 'before') {
          setTimeout(() => forward(answer), fault.ms);
          return;
        }
        return forward((a) => void setTimeout(() => answer(a), fault.ms));
      case 'hang': {
        const abandon = (): void => callback({ code: status.UNAVAILABLE, details: 'the CSI proxy stopped' });
        if (fault.when === 'before') return this.hold({ method, when: 'before', release: () => forward(answer), abandon });
        return forward((a) => this.hold({ method, when: 'after', release: () => answer(a), abandon }));
      }
    }
  }

  private hold(h: HeldCall): void {
    this.heldCalls.add(h);
    this.events.emit('held');
  }

  private forward(path: string, call: ServerUnaryCall<Buffer, Buffer>, then: (a: Answer) => void): void {
    const deadline = call.getDeadline();
    const options = deadline === Infinity ? {} : { deadline };
    this.upstream.makeUnaryRequest(path, identity, identity, call.request, forwardedMetadata(call.metadata), options, (err, body) => {
      if (err) then({ ok: false, error: { code: err.code, details: err.details, metadata: err.metadata } });
      else then({ ok: true, body: body ?? Buffer.alloc(0) });
    });
  }
}
