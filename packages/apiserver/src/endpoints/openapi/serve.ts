/**
 * /openapi/v2 and /openapi/v3 as kube-apiserver serves them (k8s.io/kube-openapi/pkg/handler,
 * handler3): each document built once on first request, its ETag the SHA-512 of its bytes;
 * 304 on a matching If-None-Match; a v3 document asked for with its current `hash` is
 * immutable for a year, with another hash it redirects to the current one.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SERVER_VERSION } from '../discovery.js';
import type { ResourceStrategy } from '../../resources/strategy.js';
import { allPaths, openApiV3Document, v3DocumentKey, type DocumentInput, type GroupVersion } from './documents.js';
import { openApiV2Document } from './v2.js';
import type { PathOperations } from './operations.js';

/** gnostic `Document { swagger: "2.0" }` in protobuf, for clients that accept only the protobuf form. */
const OPENAPI_V2_PROTOBUF = Buffer.from([0x0a, 0x03, 0x32, 0x2e, 0x30]);
const PROTOBUF_V2 = /application\/com\.github\.proto-openapi\.spec\.v2[@.]v1\.0\+protobuf/;

interface Served {
  body: Buffer;
  etag: string;
  lastModified: string;
}

function served(document: unknown, lastModified: string): Served {
  const body = Buffer.from(JSON.stringify(document));
  return { body, etag: createHash('sha512').update(body).digest('hex').toUpperCase(), lastModified };
}

/** The OpenAPI documents of one set of served resources, built lazily and kept. */
export class OpenApiDocuments {
  private readonly input: DocumentInput;
  private readonly since = new Date().toUTCString();
  private paths?: PathOperations[];
  private v2?: Served;
  private readonly v3 = new Map<string, Served>();
  private index?: Served;

  constructor(strategies: readonly ResourceStrategy[]) {
    this.input = { resources: strategies.map((s) => s.info), version: `${SERVER_VERSION.major}.${SERVER_VERSION.minor}` };
  }

  private allPaths(): PathOperations[] {
    this.paths ??= allPaths(this.input);
    return this.paths;
  }

  /** The v3 document keys ("api/v1", "apis/storage.k8s.io/v1", ...), sorted. */
  v3Keys(): string[] {
    return [...new Set(this.allPaths().map((p) => v3DocumentKey(p.path)))].sort();
  }

  openApiV2(): Served {
    this.v2 ??= served(openApiV2Document(this.input, this.allPaths()), this.since);
    return this.v2;
  }

  openApiV3(key: string): Served | undefined {
    const cached = this.v3.get(key);
    if (cached) return cached;
    const paths = this.allPaths().filter((p) => v3DocumentKey(p.path) === key);
    if (paths.length === 0) return undefined;
    const doc = served(openApiV3Document(this.input, paths, key, groupVersionOf(key)), this.since);
    this.v3.set(key, doc);
    return doc;
  }

  openApiV3Index(): Served {
    if (!this.index) {
      const paths = Object.fromEntries(this.v3Keys().map((key) => [key, { serverRelativeURL: `/openapi/v3/${key}?hash=${this.openApiV3(key)?.etag}` }]));
      this.index = served({ paths }, this.since);
    }
    return this.index;
  }
}

function groupVersionOf(key: string): GroupVersion | undefined {
  const t = key.split('/');
  if (t[0] === 'api' && t.length === 2) return { group: '', version: t[1] };
  if (t[0] === 'apis' && t.length === 3) return { group: t[1], version: t[2] };
  return undefined;
}

function send(req: IncomingMessage, res: ServerResponse, doc: Served, contentType: string, headers: Record<string, string | string[]>): void {
  const etag = `"${doc.etag}"`;
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, { ...headers, ETag: etag });
    res.end();
    return;
  }
  res.writeHead(200, { 'Accept-Ranges': 'bytes', ...headers, 'Content-Type': contentType, ETag: etag, 'Last-Modified': doc.lastModified, 'Content-Length': String(doc.body.length) });
  res.end(req.method === 'HEAD' ? undefined : doc.body);
}

const NO_CACHE = 'no-cache, private';

export function serveOpenApiV2(docs: OpenApiDocuments, req: IncomingMessage, res: ServerResponse): void {
  const vary = ['Accept-Encoding', 'Accept'];
  if (PROTOBUF_V2.test(req.headers.accept ?? '') && !/application\/json|\*\/\*/.test(req.headers.accept ?? '')) {
    res.writeHead(200, { 'Cache-Control': NO_CACHE, 'Content-Type': 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', Vary: vary, 'Content-Length': String(OPENAPI_V2_PROTOBUF.length) });
    res.end(OPENAPI_V2_PROTOBUF);
    return;
  }
  send(req, res, docs.openApiV2(), 'application/json', { 'Cache-Control': NO_CACHE, Vary: vary });
}

/** Go's time.RFC1123 of a UTC time: "Wed, 01 Dec 2027 12:01:23 UTC". */
function rfc1123Utc(date: Date): string {
  return date.toUTCString().replace(/GMT$/, 'UTC');
}

/** /openapi/v3 and /openapi/v3/{key}; false when no document has that key. */
export function serveOpenApiV3(docs: OpenApiDocuments, req: IncomingMessage, res: ServerResponse, path: string, hash: string | null): boolean {
  if (path === '/openapi/v3') {
    const index = docs.openApiV3Index();
    res.writeHead(200, { 'Accept-Ranges': 'bytes', 'Cache-Control': NO_CACHE, 'Content-Type': 'text/plain; charset=utf-8', 'Last-Modified': index.lastModified, 'Content-Length': String(index.body.length) });
    res.end(req.method === 'HEAD' ? undefined : index.body);
    return true;
  }
  const key = path.slice('/openapi/v3/'.length);
  const doc = docs.openApiV3(key);
  if (!doc) return false;
  if (hash !== null && hash !== '' && hash !== doc.etag) {
    res.writeHead(301, { 'Cache-Control': NO_CACHE, 'Content-Type': 'application/json', ETag: `"${doc.etag}"`, Location: `/openapi/v3/${key}?hash=${doc.etag}`, Vary: 'Accept', 'Content-Length': '0' });
    res.end();
    return true;
  }
  const caching: Record<string, string> = hash === doc.etag
    ? { 'Cache-Control': 'public, immutable', Expires: rfc1123Utc(new Date(Date.now() + 365 * 24 * 3600 * 1000)) }
    : { 'Cache-Control': NO_CACHE };
  send(req, res, doc, 'application/json', { ...caching, Vary: 'Accept' });
  return true;
}
