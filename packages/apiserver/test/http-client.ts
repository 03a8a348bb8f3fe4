/**
 * A raw HTTPS client for server tests: exact status codes, headers and bodies, and watch
 * streams read line by line with deadlines.
 */
import { request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { TestServerAddress } from '../../../test/helpers/apiserver.js';

export interface ApiResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body's bytes (protobuf answers). */
  bytes: Buffer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test-side JSON boundary
  json: any;
}

export interface RequestOptions {
  body?: unknown;
  rawBody?: Buffer | string;
  headers?: Record<string, string>;
  /** Token to send; null sends none. Default: the server's. */
  token?: string | null;
}

/** Sends `path` exactly as given: no dot-segment resolution, no re-encoding (hostile-path tests rely on it). */
function open(server: TestServerAddress, method: string, path: string, opts: RequestOptions): Promise<IncomingMessage> {
  const { hostname, port } = new URL(server.url);
  const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
  const token = opts.token === undefined ? server.token : opts.token;
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  let payload: Buffer | string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    payload = JSON.stringify(opts.body);
    headers['Content-Type'] ??= 'application/json';
  }
  if (payload !== undefined) headers['Content-Length'] = String(Buffer.byteLength(payload));
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ hostname, port, path, method, headers, ca: server.caPem }, resolve);
    req.on('error', reject);
    req.end(payload);
  });
}

export async function api(server: TestServerAddress, method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse> {
  const res = await open(server, method, path, opts);
  const chunks: Buffer[] = [];
  for await (const c of res as AsyncIterable<Buffer>) chunks.push(c);
  const bytes = Buffer.concat(chunks);
  const text = bytes.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode ?? 0, headers: res.headers, text, bytes, json };
}

export interface WatchEvent {
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test-side JSON boundary
  object: any;
}

export interface WatchStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The next event, waiting up to `timeoutMs`. */
  next(timeoutMs?: number): Promise<WatchEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Events received and not yet taken. */
  pending(): WatchEvent[];
  close(): void;
}

export async function watch(server: TestServerAddress, path: string, headers: Record<string, string> = {}): Promise<WatchStream> {
  const res = await open(server, 'GET', path, { headers });
  const queue: WatchEvent[] = [];
  const waiters: Array<() => void> = [];
  let buffer = '';
  let done = false;
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim() !== '') queue.push(JSON.parse(line) as WatchEvent);
    }
    waiters.splice(0).forEach((w) => w());
  });
  const ended = new Promise<void>((resolve) => {
    const finish = (): void => {
      done = true;
      waiters.splice(0).forEach((w) => w());
      resolve();
    };
    res.on('end', finish);
    res.on('close', finish);
    res.on('error', finish);
  });
  const next = async (timeoutMs = 5000): Promise<WatchEvent> => {
    const deadline = Date.now() + timeoutMs;
    while (queue.length === 0) {
      if (done) throw new Error('watch ended without another event');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no watch event within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return queue.shift()!;
  };
  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    next,
    ended,
    pending: () => [...queue],
    close: () => res.destroy(),
  };
}
