/**
 * The physical limit: a bare `node:https` server that only parses each JSON body, stamps a
 * resourceVersion, stores it and echoes it back — no routing tables, validation, defaulting,
 * watch fan-out or durability. It runs as its own process, exactly as the embedded API server
 * does in the bench, and speaks TLS with keep-alive and a bearer token like it, so the same
 * client loop meets the same transport costs against both.
 *
 * Usage: node bare-server.js <dir>   (writes <dir>/kubeconfig once listening)
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { makeTlsIdentity, makeToken, writeKubeconfig } from './tls.js';

interface StoredObject {
  metadata?: { name?: string; uid?: string; resourceVersion?: string; [k: string]: unknown };
  [k: string]: unknown;
}

const objects = new Map<string, string>();
let resourceVersion = 0;

function send(res: ServerResponse, code: number, body: string): void {
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function notFound(res: ServerResponse): void {
  send(res, 404, '{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}');
}

function store(key: string, body: string): string {
  const obj = JSON.parse(body) as StoredObject;
  obj.metadata ??= {};
  obj.metadata.uid ??= randomUUID();
  obj.metadata.resourceVersion = String(++resourceVersion);
  const json = JSON.stringify(obj);
  objects.set(key, json);
  return json;
}

function handle(req: IncomingMessage, res: ServerResponse, body: string): void {
  const path = (req.url ?? '/').split('?')[0];
  const itemPath = path.endsWith('/status') ? path.slice(0, -'/status'.length) : path;
  switch (req.method) {
    case 'POST': {
      const name = (JSON.parse(body) as StoredObject).metadata?.name ?? randomUUID();
      send(res, 201, store(`${path}/${name}`, body));
      return;
    }
    case 'PUT':
      send(res, 200, store(itemPath, body));
      return;
    case 'DELETE': {
      const json = objects.get(itemPath);
      objects.delete(itemPath);
      if (json === undefined) notFound(res);
      else send(res, 200, json);
      return;
    }
    default: {
      if (path === '/version') return send(res, 200, '{"major":"1","minor":"30","gitVersion":"v1.30.0-bare"}');
      const json = objects.get(itemPath);
      if (json === undefined) notFound(res);
      else send(res, 200, json);
    }
  }
}

async function main(dir: string): Promise<void> {
  const tls = await makeTlsIdentity();
  const token = makeToken();
  const expectedAuth = `Bearer ${token}`;
  const server = createServer({ key: tls.key, cert: tls.cert, keepAliveTimeout: 120_000 }, (req, res) => {
    if (req.headers.authorization !== expectedAuth) return send(res, 401, '{"kind":"Status","code":401}');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        handle(req, res, Buffer.concat(chunks).toString('utf8'));
      } catch (err) {
        send(res, 400, JSON.stringify({ kind: 'Status', code: 400, message: String(err) }));
      }
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    writeKubeconfig(join(dir, 'kubeconfig'), address.port, tls.cert, token);
    process.stdout.write(`listening on ${address.port}\n`);
  });
  const shutdown = (): void => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: bare-server <dir>\n');
  process.exit(2);
}
main(dir).catch((err: unknown) => {
  process.stderr.write(`bare-server: ${String(err)}\n`);
  process.exit(1);
});
