/**
 * Writing protobuf responses: an object or list in its envelope, and a Status for a client
 * that asked for protobuf (kube-apiserver answers errors in the negotiated form).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorForm } from '../api/accept.js';
import { sendJson, type ResponseHeaders } from '../api/http-io.js';
import { encodeObject, PROTOBUF_MEDIA_TYPE } from './envelope.js';

export function sendProtobuf(res: ServerResponse, code: number, obj: object, headers: ResponseHeaders = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = encodeObject(obj as Record<string, unknown>);
  res.writeHead(code, {
    'Content-Type': PROTOBUF_MEDIA_TYPE,
    'Cache-Control': 'no-cache, private',
    'Content-Length': String(body.length),
    ...headers,
  });
  res.end(body);
}

/** A Status body in the form the request's Accept header negotiates. */
export function sendStatus(req: IncomingMessage, res: ServerResponse, code: number, status: object): void {
  if (errorForm(req.headers.accept) === 'protobuf') sendProtobuf(res, code, status);
  else sendJson(res, code, status);
}
