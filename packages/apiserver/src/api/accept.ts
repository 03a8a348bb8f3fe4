/**
 * Content negotiation for resource responses, in kube-apiserver's two steps. Its router
 * (go-restful) first wants one offered media type, parameters aside, to be one the route
 * produces, else 406 "Not Acceptable" naming them. Then the handler takes the offers by quality
 * and picks the first it can serve with its parameters: plain JSON or protobuf, a meta.k8s.io
 * Table (JSON only here, as upstream serves Tables in JSON and YAML only), or the
 * PartialObjectMetadata forms; when none fits, 406 again in other words.
 *
 * YAML is offered as upstream offers it but answered in JSON (the embedded server writes no
 * YAML), as before this negotiation existed.
 */
import { ApiError } from '@pv-controller/kube/errors.js';

export class NotAcceptableError extends ApiError {
  constructor(message: string, showEmptyDetails = false) {
    super(406, 'NotAcceptable', message, {}, showEmptyDetails);
  }
}

export type ResponseForm =
  | { kind: 'json' }
  | { kind: 'table'; version: string }
  | { kind: 'protobuf' }
  /** PartialObjectMetadata (`list` false) or PartialObjectMetadataList, in meta.k8s.io `version`. */
  | { kind: 'partial'; version: string; list: boolean };

interface MediaRange {
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

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** The media types every resource route produces, in kube-apiserver's order. */
const PRODUCED = ['application/json', 'application/yaml', PROTOBUF];
/** A collection GET (list and watch) also streams. */
const STREAMED = ['application/json;stream=watch', `${PROTOBUF};stream=watch`];

/** What the handler picks from, as kube-apiserver's serializers list them. */
const HANDLER_NOT_ACCEPTABLE = `only the following media types are accepted: ${PRODUCED.join(', ')}`;

/** Whether a request is for a collection GET, whose route also produces the watch streams. */
type RouteShape = 'collection-get' | 'other';

/** The Accept headers of nearly every request, answered without parsing. */
const PLAIN_JSON_ACCEPTS = new Set(['application/json', '*/*', 'application/json, */*']);

/** go-restful's Route.matchesAccept: any offer, parameters dropped, equal to a produced type. */
function routeAccepts(accept: string): boolean {
  for (const offer of accept.split(',')) {
    const type = offer.split(';')[0].trim();
    if (type === '*/*' || PRODUCED.includes(type)) return true;
  }
  return false;
}

function quality(r: MediaRange): number {
  const q = r.params.q === undefined ? 1 : Number(r.params.q);
  return Number.isFinite(q) ? q : 0;
}

/** goautoneg's order: by quality, then exact types before wildcards. */
function byPreference(ranges: MediaRange[]): MediaRange[] {
  const wildness = (r: MediaRange): number => (r.type === '*/*' ? 2 : r.type.endsWith('/*') ? 1 : 0);
  return ranges
    .map((r, i) => ({ r, i }))
    .sort((a, b) => quality(b.r) - quality(a.r) || wildness(a.r) - wildness(b.r) || a.i - b.i)
    .map(({ r }) => r);
}

/** The serializer an offer names: '*' and 'application/*' stand for JSON, the first there is. */
function serializerOf(type: string): 'json' | 'yaml' | 'protobuf' | undefined {
  if (type === '*/*' || type === 'application/*' || type === 'application/json') return 'json';
  if (type === 'application/yaml') return 'yaml';
  return type === PROTOBUF ? 'protobuf' : undefined;
}

/** The form an offer asks for, if this server can serve it with the offer's parameters. */
function formOf(r: MediaRange): ResponseForm | undefined {
  const serializer = serializerOf(r.type);
  if (serializer === undefined) return undefined;
  const { as, g, v, stream } = r.params;
  if (stream !== undefined && stream !== '' && (stream !== 'watch' || serializer === 'yaml')) return undefined;
  if (as === undefined) return { kind: serializer === 'protobuf' ? 'protobuf' : 'json' };
  if (g !== 'meta.k8s.io' || (v !== 'v1' && v !== 'v1beta1')) return undefined;
  // Tables and partial metadata are written in JSON only here.
  if (serializer === 'protobuf') return undefined;
  if (as === 'Table') return { kind: 'table', version: v };
  if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') {
    return { kind: 'partial', version: v, list: as === 'PartialObjectMetadataList' };
  }
  return undefined;
}

/**
 * The response form for an Accept header; 406 as kube-apiserver answers when none can be served.
 * `protobuf` false: the objects have no protobuf form (custom resources: their serializer is
 * offered, but an unstructured object does not encode in it, so negotiation moves on).
 */
export function negotiateForm(accept: string | undefined, route: RouteShape = 'other', protobuf = true): ResponseForm {
  if (!accept || PLAIN_JSON_ACCEPTS.has(accept)) return { kind: 'json' };
  if (!routeAccepts(accept)) {
    const available = route === 'collection-get' ? [...PRODUCED, ...STREAMED] : PRODUCED;
    throw new NotAcceptableError(`406: Not Acceptable\n\nAvailable representations: ${available.join(', ')}`, true);
  }
  for (const r of byPreference(parseAccept(accept))) {
    const form = formOf(r);
    if (form !== undefined && (protobuf || form.kind !== 'protobuf')) return form;
  }
  throw new NotAcceptableError(HANDLER_NOT_ACCEPTABLE);
}

/** The form of an error body: protobuf when that is what negotiation picks, JSON otherwise. */
export function errorForm(accept: string | undefined): 'json' | 'protobuf' {
  try {
    return negotiateForm(accept).kind === 'protobuf' ? 'protobuf' : 'json';
  } catch (err) {
    if (err instanceof NotAcceptableError) return 'json';
    throw err;
  }
}
