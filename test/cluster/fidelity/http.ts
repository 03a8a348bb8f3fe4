/**
 * The HTTP side of a replay: one keep-alive client per server, plain requests and watches, and
 * the answer as the comparison sees it (status, content type, warnings, body).
 */
import type { IncomingMessage } from 'node:http';
import { Agent, request } from 'node:https';
import { decodeObject, encodeObject, PROTOBUF_MEDIA_TYPE } from '@pv-controller/apiserver/protobuf/envelope.js';
import type { HttpMethod } from './case.js';

export interface Target {
  name: 'real' | 'ours';
  url: string;
  token: string;
  caPem: string;
  kubeconfigPath: string;
  kubectl: string;
}

export interface HttpAnswer {
  status: number;
  contentType: string;
  warnings: string[];
  body: unknown;
}

export interface WatchAnswer extends HttpAnswer {
  /** The events read (for a 200 answer). */
  events: unknown[];
}

/** Sent with every request: kube-apiserver names the managedFields manager after it. */
export const USER_AGENT = 'fidelity';
const REQUEST_TIMEOUT_MS = 15_000;

export interface HttpRequest {
  method: HttpMethod;
  path: string;
  body?: unknown;
  contentType?: string;
  accept?: string;
}

function warningsOf(res: IncomingMessage): string[] {
  const out: string[] = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    if (res.rawHeaders[i].toLowerCase() === 'warning') out.push(res.rawHeaders[i + 1]);
  }
  return out;
}

/** A protobuf answer as JSON (our decoder, the same for both servers), or its bytes by presence. */
function decodeProtobuf(raw: Buffer): unknown {
  try {
    return decodeObject(raw, { apiVersion: '', kind: '' }).value;
  } catch {
    return { bytes: 'some' };
  }
}

/** JSON when it parses (kube-apiserver sends some JSON as text/plain), else text; binary only by presence. */
function decodeBody(contentType: string, raw: Buffer): unknown {
  if (raw.length === 0) return '';
  if (contentType === PROTOBUF_MEDIA_TYPE) return decodeProtobuf(raw);
  if (!/json|yaml|^text\/|^$/.test(contentType)) return { bytes: 'some' };
  const text = raw.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** An object body in JSON, or encoded by our protobuf encoder when the step sends protobuf. */
function encodeBody(req: HttpRequest): string | Buffer {
  if (req.contentType === PROTOBUF_MEDIA_TYPE) return encodeObject(req.body as Record<string, unknown>);
  return JSON.stringify(req.body);
}

export class TargetClient {
  private readonly agent: Agent;

  constructor(readonly target: Target) {
    this.agent = new Agent({ keepAlive: true, ca: target.caPem, maxSockets: 4 });
  }

  close(): void {
    this.agent.destroy();
  }

  private open(req: HttpRequest, onResponse: (res: IncomingMessage) => void, onError: (err: Error) => void): () => void {
    const payload = req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : encodeBody(req);
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.target.token}`,
      'User-Agent': USER_AGENT,
      Accept: req.accept ?? 'application/json',
    };
    if (payload !== undefined) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    const r = request(new URL(req.path, this.target.url), { method: req.method, headers, agent: this.agent }, onResponse);
    r.setTimeout(REQUEST_TIMEOUT_MS, () => r.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    r.once('error', onError);
    r.end(payload);
    return () => r.destroy();
  }

  send(req: HttpRequest): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      this.open(req, (res) => {
        readAll(res).then((raw) => resolve({ ...head(res), body: decodeBody(head(res).contentType, raw) }), reject);
      }, reject);
    });
  }

  /**
   * Opens a watch, calls `opened` once its headers arrive, and collects events until `wanted`
   * have come, the server ends the stream, or `deadlineMs` passes. A connection lost after the
   * headers ends the watch with what arrived; `opened` failing fails it.
   */
  watch(req: HttpRequest, wanted: number, deadlineMs: number, opened: () => Promise<void>): Promise<WatchAnswer> {
    return new Promise((resolve, reject) => {
      let answer: WatchAnswer | undefined;
      let done = false;
      const settle = (err?: Error): void => {
        if (done || (!err && !answer)) return;
        done = true;
        clearTimeout(timer);
        cancel();
        if (err) reject(err);
        else resolve({ ...answer!, events: [...answer!.events] });
      };
      const timer = setTimeout(() => settle(), deadlineMs);
      const cancel = this.open(req, (res) => {
        const a: WatchAnswer = { ...head(res), body: '', events: [] };
        answer = a;
        if (a.status !== 200) {
          const keepBody = (raw: Buffer): void => {
            a.body = decodeBody(a.contentType, raw);
            settle();
          };
          readAll(res).then(keepBody, () => settle());
          return;
        }
        eachLine(res, (line) => {
          a.events.push(decodeBody('application/json', Buffer.from(line)));
          if (a.events.length >= wanted) settle();
        });
        res.once('end', () => settle());
        res.once('error', () => settle());
        opened().catch((err: unknown) => settle(err instanceof Error ? err : new Error(String(err))));
      }, (err) => settle(answer ? undefined : err));
    });
  }
}

function head(res: IncomingMessage): Omit<HttpAnswer, 'body'> {
  return { status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), warnings: warningsOf(res) };
}

function readAll(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.once('error', reject);
    res.once('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** Calls `line` for every non-empty line of a streamed body (one watch event each). */
function eachLine(res: IncomingMessage, line: (text: string) => void): void {
  let buffered = '';
  res.on('data', (c: Buffer) => {
    buffered += c.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const text = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (text !== '') line(text);
    }
  });
}
