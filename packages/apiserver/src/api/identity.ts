/**
 * Who a request acts as, and what that identity may do. The embedded server authenticates one
 * user, the holder of its token, in system:masters: kube-apiserver never restricts that group.
 * It serves no RBAC objects, so it is a cluster with no Roles and no bindings: a request that
 * impersonates another user (kubectl --as, --as-group) acts as that user, who may do exactly what
 * RBAC's bootstrap policy grants every authenticated user — the self reviews
 * (system:basic-user), discovery (system:discovery) and the public info paths
 * (system:public-info-viewer) — unless the impersonated groups include system:masters. So
 * `kubectl auth can-i list pods --as=nobody` answers no, as a real cluster without bindings does.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, InternalError } from '@pv-controller/kube/errors.js';

export interface Identity {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const MASTERS = 'system:masters';
const AUTHENTICATED = 'system:authenticated';
const ANONYMOUS_USER = 'system:anonymous';
const UNAUTHENTICATED = 'system:unauthenticated';

/** Who the token authenticates: the kubeconfig's user, in the group kube-apiserver never restricts. */
export const ADMIN: Identity = { username: 'pv-controller-admin', groups: [MASTERS, AUTHENTICATED] };

/** Said in `kubectl auth whoami` (the user's extra), so nobody mistakes the embedded server's authorization for RBAC. */
export const EMBEDDED_AUTHZ_NOTE =
  'the embedded API server has one identity, this admin, and no RBAC objects: a user impersonated with --as may do only what every authenticated user may';
export const NOTE_EXTRA_KEY = 'pv-controller.io/authorization';

const EXTRA_PREFIX = 'impersonate-extra-';

function headerValues(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : value.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/**
 * The identity a request acts as: the admin, or the user its Impersonate-* headers name (the
 * admin, in system:masters, may impersonate anyone). Groups, uid or extra without a user are
 * refused as kube-apiserver's impersonation filter refuses them.
 */
export function requestIdentity(headers: IncomingHttpHeaders): Identity {
  const user = headers['impersonate-user'];
  const groups = headerValues(headers['impersonate-group']);
  const uid = headers['impersonate-uid'];
  const extraKeys = Object.keys(headers).filter((h) => h.startsWith(EXTRA_PREFIX));
  if (typeof user !== 'string' || user === '') {
    if (groups.length > 0 || uid !== undefined || extraKeys.length > 0) {
      const asked = [...groups.map((g) => `Group=${g}`), ...(uid !== undefined ? [`UID=${String(uid)}`] : []), ...extraKeys];
      throw new InternalError(`requested [${asked.join(' ')}] without impersonating a user`);
    }
    return ADMIN;
  }
  const extra: Record<string, string[]> = {};
  for (const key of extraKeys) extra[decodeURIComponent(key.slice(EXTRA_PREFIX.length))] = headerValues(headers[key]);
  // kube-apiserver adds the group every such user is in.
  const implied = user === ANONYMOUS_USER ? UNAUTHENTICATED : AUTHENTICATED;
  return {
    username: user,
    ...(typeof uid === 'string' && uid !== '' ? { uid } : {}),
    groups: groups.includes(implied) ? groups : [...groups, implied],
    ...(extraKeys.length > 0 ? { extra } : {}),
  };
}

export function isUnrestricted(identity: Identity): boolean {
  return identity.groups.includes(MASTERS);
}

const AUTHORIZATION = 'authorization.k8s.io';
const AUTHENTICATION = 'authentication.k8s.io';
const PUBLIC_INFO_URLS = ['/healthz', '/livez', '/readyz', '/version', '/version/'];
const DISCOVERY_URLS = ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'];

const BASIC_RESOURCE_RULES = [
  { verbs: ['create'], apiGroups: [AUTHORIZATION], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
  { verbs: ['create'], apiGroups: [AUTHENTICATION], resources: ['selfsubjectreviews'] },
];
const BASIC_NON_RESOURCE_RULES = [
  { verbs: ['get'], nonResourceURLs: DISCOVERY_URLS },
  { verbs: ['get'], nonResourceURLs: PUBLIC_INFO_URLS },
];

/** What a SelfSubjectRulesReview answers for an identity (RBAC's order: granted rules, then the bootstrap ones). */
export function rulesFor(identity: Identity): { resourceRules: unknown[]; nonResourceRules: unknown[]; incomplete: boolean } {
  const all = isUnrestricted(identity);
  return {
    resourceRules: [...(all ? [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] : []), ...structuredClone(BASIC_RESOURCE_RULES)],
    nonResourceRules: [...structuredClone(BASIC_NON_RESOURCE_RULES), ...(all ? [{ verbs: ['*'], nonResourceURLs: ['*'] }] : [])],
    incomplete: false,
  };
}

/** What an authorization decision is about: a resource request, or a path. */
export type Attributes =
  | { kind: 'resource'; verb: string; group: string; resource: string; subresource?: string; namespace?: string; name?: string }
  | { kind: 'path'; verb: string; path: string };

function pathMatches(pattern: string, path: string): boolean {
  if (pattern === '*') return true;
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern;
}

/** RBAC's decision for an identity with no bindings but the bootstrap ones (or system:masters). */
export function allows(identity: Identity, attrs: Attributes): boolean {
  if (isUnrestricted(identity)) return true;
  if (attrs.kind === 'path') {
    return BASIC_NON_RESOURCE_RULES.some((r) => r.verbs.includes(attrs.verb) && r.nonResourceURLs.some((p) => pathMatches(p, attrs.path)));
  }
  if (attrs.subresource !== undefined && attrs.subresource !== '') return false;
  return BASIC_RESOURCE_RULES.some((r) => r.verbs.includes(attrs.verb) && r.apiGroups.includes(attrs.group) && r.resources.includes(attrs.resource));
}

/** kube-apiserver's Forbidden for a refused request, worded as its authorization filter words it. */
export function forbidden(identity: Identity, attrs: Attributes): ApiError {
  const who = `User "${identity.username}"`;
  if (attrs.kind === 'path') return new ApiError(403, 'Forbidden', `forbidden: ${who} cannot ${attrs.verb} path "${attrs.path}"`, {}, true);
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const where = attrs.namespace !== undefined && attrs.namespace !== '' ? `in the namespace "${attrs.namespace}"` : 'at the cluster scope';
  const qualified = attrs.group ? `${attrs.resource}.${attrs.group}` : attrs.resource;
  const subject = attrs.name !== undefined && attrs.name !== '' ? `${qualified} "${attrs.name}"` : qualified;
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${who} cannot ${attrs.verb} resource "${resource}" in API group "${attrs.group}" ${where}`, {
    ...(attrs.name ? { name: attrs.name } : {}),
    ...(attrs.group ? { group: attrs.group } : {}),
    kind: attrs.resource,
  });
}
