/**
 * Request/response plumbing: bounded body reading, JSON parsing with the API server's error
 * shapes, and JSON responses.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BadRequestError, RequestEntityTooLargeError } from '../kube/errors.js';

/** kube-apiserver's limit for a request body (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Reads the whole body; 413 as soon as it exceeds `limit` bytes. */
export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) {
    req.resume();
    throw new RequestEntityTooLargeError(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw new RequestEntityTooLargeError(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
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
