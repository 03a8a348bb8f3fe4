/**
 * Sends a corpus request to a server (ours or kube-apiserver) over one TLS connection, exactly
 * as written, and sums the answer up in the terms it is compared on: the Status fields for an
 * error, the kind and what the request aimed at for an object, the text otherwise.
 */
import { request as httpsRequest } from 'node:https';
import type { HostileRequest } from './corpus.js';

export interface ServerAddress {
  url: string;
  token: string;
  caPem: string;
}

export interface AnswerSummary {
  code: number;
  kind?: string;
  reason?: string;
  message?: string;
  details?: unknown;
  storage?: string;
  text?: string;
}

export interface RawAnswer {
  code: number;
  text: string;
}

export function send(server: ServerAddress, req: HostileRequest): Promise<RawAnswer> {
  const { hostname, port } = new URL(server.url);
  const headers: Record<string, string> = { Accept: 'application/json' };
  headers.Authorization = (req.authorization ?? 'Bearer {token}').replaceAll('{token}', server.token);
  const payload = req.body === undefined ? undefined : Buffer.from(req.body, req.bodyEncoding ?? 'utf8');
  if (payload !== undefined) {
    headers['Content-Type'] = req.contentType ?? 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const r = httpsRequest({ hostname, port, path: req.path, method: req.method, headers, ca: server.caPem, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(payload);
  });
}

export function summarize(answer: RawAnswer): AnswerSummary {
  let body: Record<string, unknown> | undefined;
  try {
    body = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    return { code: answer.code, text: answer.text.slice(0, 300) };
  }
  if (body?.kind === 'Status') {
    // The stored resourceVersion a precondition message quotes differs from server to server.
    const message = (body.message as string).replace(/ResourceVersion in record \(\d+\)/, 'ResourceVersion in record (<rv>)');
    const summary: AnswerSummary = { code: answer.code, kind: 'Status', message };
    if (body.reason !== undefined) summary.reason = body.reason as string;
    if (body.details !== undefined) summary.details = body.details;
    return summary;
  }
  const storage = (body?.spec as { capacity?: { storage?: string } } | undefined)?.capacity?.storage;
  return { code: answer.code, kind: String(body?.kind), ...(storage === undefined ? {} : { storage }) };
}
