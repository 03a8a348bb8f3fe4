/**
 * The create-only review resources kubectl's `auth can-i` and `auth whoami` post to:
 * SelfSubjectAccessReview and SelfSubjectRulesReview (authorization.k8s.io/v1) and
 * SelfSubjectReview (authentication.k8s.io/v1). Nothing is stored. The embedded server knows
 * one user, the holder of its token, in system:masters, who may do everything, and answers for an
 * impersonated user what a cluster without RBAC bindings answers (api/identity.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, BadRequestError, MethodNotAllowedError } from '@pv-controller/kube/errors.js';
import type { KubeObject, StatusCause } from '@pv-controller/kube/types.js';
import { managedFieldsAfterWrite } from '../registry/apply/ownership.js';
import { objectBodyFormat, parseRequestBody } from '../decode/request-body.js';
import { pathNotFound } from '../api/errors.js';
import { readBody, sendJson } from '../api/http-io.js';
import { isPlainObject, rfc3339Seconds } from '../resources/object-utils.js';
import { managerFromUserAgent } from './write-request.js';
import { resourceInfo } from '../resources/common.js';
import type { ResourceInfo } from '../resources/strategy.js';
import type { ResourcePath } from '../api/router.js';
import { ADMIN, allows, EMBEDDED_AUTHZ_NOTE, NOTE_EXTRA_KEY, rulesFor, type Attributes, type Identity } from '../api/identity.js';

type Body = Record<string, unknown>;

/** Who posts a review and when: the managedFields of an answer that echoes its body, and the identity it is about. */
interface ReviewWriter {
  manager: string;
  now: Date;
  identity: Identity;
}

interface ReviewResource {
  info: ResourceInfo;
  /** The answer to a decoded body; throws an ApiError where kube-apiserver refuses it. */
  answer(body: Body, writer: ReviewWriter): Body;
}

const AUTHORIZATION = 'authorization.k8s.io';
const AUTHENTICATION = 'authentication.k8s.io';

function reviewInfo(group: string, plural: string, kind: string): ResourceInfo {
  return resourceInfo({ group, version: 'v1', plural, kind, namespaced: false, hasStatus: false, verbs: ['create'] });
}

/** The internal type's fields in Go's struct order: the order kube-apiserver writes them back in. */
const RESOURCE_ATTRIBUTE_ORDER = ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name', 'fieldSelector', 'labelSelector'];
const NON_RESOURCE_ATTRIBUTE_ORDER = ['path', 'verb'];

function ordered(value: unknown, order: string[]): Body | undefined {
  if (!isPlainObject(value)) return undefined;
  const out: Body = {};
  for (const key of order) if (value[key] !== undefined && value[key] !== '') out[key] = value[key];
  return out;
}

/** Go's `%v`-as-JSON of the internal NonResourceAttributes (no json tags: field names as declared). */
function goNonResourceValue(attrs: Body | undefined): string {
  if (attrs === undefined) return 'null';
  return JSON.stringify({ Path: attrs.path ?? '', Verb: attrs.verb ?? '' });
}

function isEmptyValue(v: unknown): boolean {
  return v === undefined || v === null || v === '' || v === 0 || (typeof v === 'object' && Object.keys(v).length === 0);
}

function invalid(group: string, causes: StatusCause[]): ApiError {
  const list = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  // The internal object carries no kind, so the message starts with "." and details name none.
  return new ApiError(422, 'Invalid', `.${group} "" is invalid: ${summary}`, { group, causes });
}

/** ValidateSelfSubjectAccessReview: exactly one kind of attributes, and metadata left empty. */
function accessReviewCauses(meta: unknown, resource: Body | undefined, nonResource: Body | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  if ((resource === undefined) === (nonResource === undefined)) {
    const message = `Invalid value: ${goNonResourceValue(nonResource)}: exactly one of nonResourceAttributes or resourceAttributes must be specified`;
    causes.push({ reason: 'FieldValueInvalid', message, field: 'spec' });
  }
  if (isPlainObject(meta) && Object.entries(meta).some(([k, v]) => k !== 'managedFields' && !isEmptyValue(v))) {
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(meta)}: must be empty`, field: 'metadata' });
  }
  return causes;
}

/**
 * The metadata of an answer that is the posted object itself (SelfSubjectAccessReview): its
 * managedFields, which kube-apiserver's create handler records on every object it decodes.
 */
function echoedMetadata(info: ResourceInfo, spec: Body, writer: ReviewWriter): Body {
  const object = { apiVersion: apiVersionOf(info), kind: info.kind, metadata: {}, spec } as KubeObject;
  const managedFields = managedFieldsAfterWrite(info, undefined, object, undefined, { manager: writer.manager, now: rfc3339Seconds(writer.now) });
  return managedFields === undefined ? {} : { managedFields };
}

const ACCESS_REVIEW_INFO = reviewInfo(AUTHORIZATION, 'selfsubjectaccessreviews', 'SelfSubjectAccessReview');

const selfSubjectAccessReview: ReviewResource = {
  info: ACCESS_REVIEW_INFO,
  answer(body, writer) {
    const spec = isPlainObject(body.spec) ? body.spec : {};
    const resource = ordered(spec.resourceAttributes, RESOURCE_ATTRIBUTE_ORDER);
    const nonResource = ordered(spec.nonResourceAttributes, NON_RESOURCE_ATTRIBUTE_ORDER);
    const causes = accessReviewCauses(body.metadata, resource, nonResource);
    if (causes.length > 0) throw invalid(AUTHORIZATION, causes);
    const echoed: Body = resource ? { resourceAttributes: resource } : { nonResourceAttributes: nonResource };
    const allowed = allows(writer.identity, reviewAttributes(resource, nonResource));
    return { metadata: echoedMetadata(ACCESS_REVIEW_INFO, echoed, writer), spec: echoed, status: { allowed } };
  },
};

const selfSubjectRulesReview: ReviewResource = {
  info: reviewInfo(AUTHORIZATION, 'selfsubjectrulesreviews', 'SelfSubjectRulesReview'),
  answer(body, { identity }) {
    const spec = isPlainObject(body.spec) ? body.spec : {};
    if (typeof spec.namespace !== 'string' || spec.namespace === '') throw new BadRequestError('no namespace on request');
    return { metadata: {}, spec: {}, status: rulesFor(identity) };
  },
};

const selfSubjectReview: ReviewResource = {
  info: reviewInfo(AUTHENTICATION, 'selfsubjectreviews', 'SelfSubjectReview'),
  answer(_body, { now, identity }) {
    // The admin is told plainly that there is no RBAC here (kubectl auth whoami prints the extra).
    const userInfo = identity === ADMIN ? { ...ADMIN, groups: [...ADMIN.groups], extra: { [NOTE_EXTRA_KEY]: [EMBEDDED_AUTHZ_NOTE] } } : structuredClone(identity);
    return { metadata: { creationTimestamp: rfc3339Seconds(now) }, status: { userInfo } };
  },
};

const REVIEWS: ReviewResource[] = [selfSubjectAccessReview, selfSubjectRulesReview, selfSubjectReview];

/** The review resources as discovery lists them. */
export const reviewResources: { info: ResourceInfo; unstored: true }[] = REVIEWS.map((r) => ({ info: r.info, unstored: true }));

function findReview(route: ResourcePath): ReviewResource | undefined {
  return REVIEWS.find((r) => r.info.group === route.group && r.info.version === route.version && r.info.plural === route.plural);
}

export function isReviewRoute(route: ResourcePath): boolean {
  return findReview(route) !== undefined;
}

function apiVersionOf(info: ResourceInfo): string {
  return `${info.group}/${info.version}`;
}

/** A body of another kind fails conversion into the review's internal type. */
function requireKind(info: ResourceInfo, body: Body): void {
  const kind = typeof body.kind === 'string' ? body.kind : '';
  const apiVersion = typeof body.apiVersion === 'string' ? body.apiVersion : '';
  if ((kind === '' || kind === info.kind) && (apiVersion === '' || apiVersion === apiVersionOf(info))) return;
  const [group] = info.group.split('.');
  const version = apiVersion.includes('/') ? apiVersion.split('/')[1] : apiVersion;
  throw new BadRequestError(
    `${kind} in version "${version}" cannot be handled as a ${info.kind}: converting (${version}.${kind}) to (${group}.${info.kind}): unknown conversion`,
  );
}

/** The body as a JSON value: protobuf (what kubectl sends, through the generated codec), JSON or YAML. */
async function readReviewBody(req: IncomingMessage, info: ResourceInfo): Promise<unknown> {
  const format = objectBodyFormat(req.headers['content-type']);
  return parseRequestBody(await readBody(req), { role: 'object', kind: info.kind, apiVersion: apiVersionOf(info) }, format);
}

/**
 * Serves a request to a review resource (isReviewRoute). Only POST on the collection exists: a
 * name, a namespace or a subresource is a 404, any other method a 405.
 */
export async function serveReview(
  req: IncomingMessage,
  res: ServerResponse,
  route: ResourcePath,
  query: URLSearchParams,
  { now, identity }: { now: Date; identity: Identity },
): Promise<void> {
  const review = findReview(route);
  if (!review) throw pathNotFound();
  if (route.namespace !== undefined || route.name !== undefined || route.legacyWatch) throw pathNotFound();
  if (req.method !== 'POST') throw new MethodNotAllowedError();
  const parsed = await readReviewBody(req, review.info);
  if (!isPlainObject(parsed)) throw new BadRequestError(`Object '${review.info.kind}' is missing in the request body`);
  requireKind(review.info, parsed);
  const manager = query.get('fieldManager') || managerFromUserAgent(req.headers['user-agent']);
  const answer = review.answer(parsed, { manager, now, identity });
  sendJson(res, 201, { kind: review.info.kind, apiVersion: apiVersionOf(review.info), ...answer });
}

/** The decision's attributes from a review's (already validated) resource or non-resource attributes. */
function reviewAttributes(resource: Body | undefined, nonResource: Body | undefined): Attributes {
  if (resource) {
    const str = (k: string): string => (typeof resource[k] === 'string' ? (resource[k] as string) : '');
    return {
      kind: 'resource',
      verb: str('verb'),
      group: str('group'),
      resource: str('resource'),
      ...(str('subresource') ? { subresource: str('subresource') } : {}),
      ...(str('namespace') ? { namespace: str('namespace') } : {}),
      ...(str('name') ? { name: str('name') } : {}),
    };
  }
  const path = typeof nonResource?.path === 'string' ? nonResource.path : '';
  return { kind: 'path', verb: typeof nonResource?.verb === 'string' ? nonResource.verb : '', path };
}
