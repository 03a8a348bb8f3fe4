/**
 * The shared machinery of the fake clouds: a `node:http` server on 127.0.0.1 port 0 that any test
 * can start and stop, and a fault plan that makes the next N calls of an action fail in a chosen
 * way (5xx, throttling, a hang past the client's timeout, "in use", or a lost answer after the
 * backend already did the work).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FaultKind =
  /** Answer with the API's 5xx error. */
  | 'serverError'
  /** Answer with the API's throttling error (EC2 RequestLimitExceeded, GCE 429, Cinder 413/429). */
  | 'throttle'
  /** Never answer (until the server stops): the client must time out. */
  | 'hang'
  /** Do the work, then drop the connection without an answer (crash between create and reply). */
  | 'lostResponse'
  /** Delete only: refuse as if the disk were attached to a machine. */
  | 'inUse';

/** Queued faults per action, and how often each action was called. */
export class FaultPlan {
  private readonly queued = new Map<string, FaultKind[]>();
  private readonly counts = new Map<string, number>();

  /** The next `times` calls of `action` fail with `kind` (after any already queued). */
  inject(action: string, kind: FaultKind, times = 1): void {
    const list = this.queued.get(action) ?? [];
    for (let i = 0; i < times; i++) list.push(kind);
    this.queued.set(action, list);
  }

  /** Counts a call of `action` and returns the fault it must suffer, if any. */
  take(action: string): FaultKind | undefined {
    this.counts.set(action, (this.counts.get(action) ?? 0) + 1);
    return this.queued.get(action)?.shift();
  }

  /** How many times `action` was called (faulted calls included). */
  calls(action: string): number {
    return this.counts.get(action) ?? 0;
  }

  /** Faults still waiting for their call. */
  pending(action: string): number {
    return this.queued.get(action)?.length ?? 0;
  }

  clear(): void {
    this.queued.clear();
  }
}

export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  body: Buffer;
}

export type Handler = (exchange: Exchange) => Promise<void> | void;

/** A loopback HTTP server; `url` is valid between start() and stop(). */
export class LoopbackServer {
  private server: Server | undefined;
  private baseUrl = '';
  /** Requests held open by a 'hang' fault, released (destroyed) on stop. */
  private readonly held = new Set<ServerResponse>();

  constructor(private readonly handler: Handler) {}

  get url(): string {
    if (this.baseUrl === '') throw new Error('emulator is not started');
    return this.baseUrl;
  }

  async start(): Promise<string> {
    const server = createServer((req, res) => void this.dispatch(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    for (const res of this.held) res.destroy();
    this.held.clear();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Keeps the request open without answering (a 'hang' fault). */
  hold(res: ServerResponse): void {
    this.held.add(res);
    res.on('close', () => this.held.delete(res));
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const url = new URL(req.url ?? '/', this.baseUrl);
      await this.handler({ req, res, url, body: Buffer.concat(chunks) });
    } catch (err) {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`emulator failure: ${String(err)}`);
      }
    }
  }
}

/** Drops the connection without an answer (after the work was done). */
export function dropConnection(exchange: Exchange): void {
  exchange.req.socket.destroy();
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

/** The text after `prefix` in `path`, split on '/', or undefined when `path` does not start with it. */
export function pathSegments(path: string, prefix: string): string[] | undefined {
  if (!path.startsWith(prefix)) return undefined;
  return path
    .slice(prefix.length)
    .split('/')
    .filter((part) => part !== '')
    .map((part) => decodeURIComponent(part));
}
