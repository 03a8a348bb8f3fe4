/**
 * Request/response plumbing: bounded body reading and JSON responses (bodies are parsed in
 * decode/request-body.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RequestEntityTooLargeError } from '@pv-controller/kube/errors.js';

/** kube-apiserver's limit for a request body (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/**
 * Reads the whole body; 413 as soon as it exceeds `limit` bytes. Plain 'data'/'end' listeners
 * rather than an async iterator: the iterator's per-request set-up was a measurable share of a
 * small write's CPU.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) {
    req.resume();
    return Promise.reject(new RequestEntityTooLargeError(limit));
  }
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.reject(new Error('the request was closed before its body was read'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (err: Error | undefined): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', settle);
      req.off('close', onClose);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      settle(new RequestEntityTooLargeError(limit));
      req.resume();
    };
    const onEnd = (): void => settle(undefined);
    const onClose = (): void => settle(new Error('the request was closed before its body was read'));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', settle);
    req.once('close', onClose);
  });
}

export function sendJson(res: ServerResponse, code: number, body: unknown, headers: ResponseHeaders = {}): void {
  sendRawJson(res, code, JSON.stringify(body), headers);
}

/** Header values; a header is bytes, so a value is a latin1 string (UTF-8 already encoded into it). */
export type ResponseHeaders = Record<string, string | string[]>;

function hasHighBytes(headers: ResponseHeaders): boolean {
  for (const value of Object.values(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) if (/[\u0080-\uffff]/.test(v)) return true;
  }
  return false;
}

export function sendRawJson(res: ServerResponse, code: number, json: string, headers: ResponseHeaders = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  // node sends the header block in the encoding of a string body, which would encode a header's
  // bytes a second time; with a Buffer body the header block goes out as latin1, byte for byte.
  const body = hasHighBytes(headers) ? Buffer.from(json) : json;
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.length),
    ...headers,
  });
  res.end(body);
}
