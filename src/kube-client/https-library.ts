/**
 * The HTTP library under the controller's client-node Configuration (`createConfiguration({
 * httpApi })`, client-node's own extension point): node:http(s) straight onto the agent,
 * headers, body and abort signal client-node put in the RequestContext. Everything above it is
 * client-node's own (generated API, KubeConfig credentials, SharedAgentAuthentication's agents
 * and deadlines, ObjectSerializer); only node-fetch is left out, the largest single CPU cost of a
 * controller request through it (21% of the controller's profile while binding 10,000 pairs:
 * Request/Headers objects, header validation and copying, a body stream per response).
 *
 * Kept from node-fetch's behaviour: gzip/deflate responses are asked for and decoded (lists from
 * a remote cluster), header names come back lower-case with repeated values joined by ", ",
 * an aborted signal rejects with an AbortError, and any body that is not a string (FormData,
 * URLSearchParams: no call of ours sends one) goes through client-node's fetch library.
 * Redirects are not followed (the Kubernetes API does not redirect API calls).
 */
import http from 'node:http';
import https from 'node:https';
import { createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import {
  IsomorphicFetchHttpLibrary,
  ResponseContext,
  wrapHttpLibrary,
  type HttpLibrary,
  type RequestContext,
} from '@kubernetes/client-node';

type Headers = Record<string, string>;

function responseHeaders(res: http.IncomingMessage): Headers {
  const out: Headers = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The response body stream, decoded when the server compressed it. */
function decoded(res: http.IncomingMessage): Readable {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'gzip' || encoding === 'x-gzip') return res.pipe(createGunzip());
  if (encoding === 'deflate') return res.pipe(createInflate());
  return res;
}

function readAll(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/** Sends one client-node request over node:http(s); resolves once the whole body is in. */
export function sendOverNodeHttp(ctx: RequestContext): Promise<ResponseContext> {
  const url = new URL(ctx.getUrl());
  const secure = url.protocol === 'https:';
  const body = ctx.getBody() as string | undefined;
  const headers: Record<string, string | number> = { 'accept-encoding': 'gzip, deflate', ...ctx.getHeaders() };
  if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
  const options: https.RequestOptions = {
    method: ctx.getHttpMethod().toString(),
    headers,
    ...(ctx.getAgent() ? { agent: ctx.getAgent() } : {}),
    ...(ctx.getSignal() ? { signal: ctx.getSignal() } : {}),
  };
  return new Promise((resolve, reject) => {
    const onResponse = (res: http.IncomingMessage): void => {
      readAll(decoded(res)).then((buffer) => {
        resolve(
          new ResponseContext(res.statusCode ?? 0, responseHeaders(res), {
            text: () => Promise.resolve(buffer.toString('utf8')),
            binary: () => Promise.resolve(buffer),
          }),
        );
      }, reject);
    };
    const req = secure ? https.request(url, options, onResponse) : http.request(url, options, onResponse);
    req.on('error', reject);
    req.end(body);
  });
}

/** client-node's HttpLibrary over node:http(s); other body kinds go to client-node's fetch library. */
export function nodeHttpLibrary(): HttpLibrary {
  const fallback = new IsomorphicFetchHttpLibrary();
  const direct = wrapHttpLibrary({ send: sendOverNodeHttp });
  return {
    send(ctx: RequestContext) {
      const body = ctx.getBody();
      return body === undefined || typeof body === 'string' ? direct.send(ctx) : fallback.send(ctx);
    },
  };
}
