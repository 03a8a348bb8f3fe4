/**
 * Request/response plumbing: bounded body reading, JSON parsing with the API server's error
 * shapes, and JSON responses.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BadRequestError, RequestEntityTooLargeError } from '../kube/errors.js';

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

/** Parses a JSON request body (the JSON boundary: the result is validated by the caller). */
export function parseJsonBody(raw: Buffer): unknown {
  const text = raw.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new BadRequestError(`the body of the request could not be decoded as JSON: ${detail}`);
  }
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** Rejects bodies the server cannot decode (protobuf, YAML) on create/update. */
export function requireJsonContentType(contentType: string | undefined): void {
  const media = mediaTypeOf(contentType);
  if (media === '' || media === 'application/json' || media === '*/*') return;
  throw new BadRequestError(`the body of the request was in an unknown format - accepted media types include: application/json (got ${media})`);
}

export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  sendRawJson(res, code, JSON.stringify(body), headers);
}

export function sendRawJson(res: ServerResponse, code: number, json: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': String(Buffer.byteLength(json)),
    ...headers,
  });
  res.end(json);
}

/** Query parameter that is "true" (kube accepts "true"/"1"). */
export function queryFlag(params: URLSearchParams, name: string): boolean {
  const v = params.get(name);
  return v === 'true' || v === '1';
}
