/**
 * Content negotiation for responses: plain JSON, a meta.k8s.io Table (JSON only, as upstream),
 * or protobuf. Offers are taken in the client's order.
 */
import { ApiError } from '../kube/errors.js';

export class NotAcceptableError extends ApiError {
  constructor(message: string) {
    super(406, 'NotAcceptable', message);
  }
}

export type ResponseForm = { kind: 'json' } | { kind: 'table'; version: string } | { kind: 'protobuf' };

export interface MediaRange {
  type: string;
  params: Record<string, string>;
}

export function parseAccept(header: string): MediaRange[] {
  return header
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const [type, ...rest] = part.split(';').map((x) => x.trim());
      const params: Record<string, string> = {};
      for (const p of rest) {
        const eq = p.indexOf('=');
        if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim();
      }
      return { type: type.toLowerCase(), params };
    });
}

const JSONISH = new Set(['application/json', '*/*', 'application/*', '']);

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** The Accept headers of nearly every request, answered without parsing. */
const PLAIN_JSON_ACCEPTS = new Set(['application/json', '*/*', 'application/json, */*']);

/** Picks the first offer we can serve, in the client's order. */
export function negotiateForm(accept: string | undefined): ResponseForm {
  if (!accept || PLAIN_JSON_ACCEPTS.has(accept)) return { kind: 'json' };
  const ranges = parseAccept(accept);
  for (const r of ranges) {
    if (r.type === PROTOBUF && r.params.as === undefined) return { kind: 'protobuf' };
    if (!JSONISH.has(r.type)) continue;
    const as = r.params.as;
    if (as === undefined) return { kind: 'json' };
    const isMeta = r.params.g === 'meta.k8s.io';
    if (as === 'Table' && isMeta && (r.params.v === 'v1' || r.params.v === 'v1beta1')) {
      return { kind: 'table', version: r.params.v };
    }
  }
  // Nothing we serve was offered (a protobuf Table, PartialObjectMetadata...): JSON is the lenient answer.
  return { kind: 'json' };
}
