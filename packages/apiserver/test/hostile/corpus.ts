import { LONG_LISTS } from './long-lists.js';

/**
 * A corpus of hostile requests, each answered by kube-apiserver v1.37.2 as recorded in
 * expected.json (`record.ts` sends them to a real server and writes it). Malformed and
 * non-object JSON, huge and deeply nested bodies, invalid names, absurd quantities, wrong or
 * padded tokens, URL traversal, unparsable selectors, bad resourceVersions and limits. Every
 * request is refused, or a dry run, so none may change a stored object; the fixtures they aim at
 * are FIXTURES. Slow bodies and many connections are not single requests: see the integration test.
 */

export interface HostileRequest {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Sent as written: no encoding, no dot-segment resolution. */
  path: string;
  body?: string;
  /** latin1 sends each character as one byte (for bytes that are no UTF-8); default utf8. */
  bodyEncoding?: 'utf8' | 'latin1';
  contentType?: string;
  /** The Authorization header as sent; absent: the server's own bearer token. */
  authorization?: string;
}

export const PVS = '/api/v1/persistentvolumes';
export const FIXTURE_NAMESPACE = 'hostile-ns';
export const FIXTURE_PV = 'hostile-pv';
export const FIXTURE_CLAIM = 'hostile-claim';
const CLAIMS = `/api/v1/namespaces/${FIXTURE_NAMESPACE}/persistentvolumeclaims`;

function pv(name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name, ...metadata },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'hostile', hostPath: { path: `/tmp/${name}` }, ...spec },
  };
}

/** The objects the corpus aims at: created before it runs, compared after. */
export const FIXTURES: Array<{ path: string; body: Record<string, unknown> }> = [
  { path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: FIXTURE_NAMESPACE } } },
  { path: PVS, body: pv(FIXTURE_PV) },
  {
    path: CLAIMS,
    body: {
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: FIXTURE_CLAIM, namespace: FIXTURE_NAMESPACE },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'hostile-none', resources: { requests: { storage: '1Gi' } } },
    },
  },
];

const json = (v: unknown): string => JSON.stringify(v);
const post = (name: string, body: string, contentType = 'application/json', path = PVS): HostileRequest => ({ name, method: 'POST', path, body, contentType });
const dryPost = (name: string, body: unknown): HostileRequest => post(name, json(body), 'application/json', `${PVS}?dryRun=All`);
const get = (name: string, path: string, authorization?: string): HostileRequest => ({ name, method: 'GET', path, ...(authorization ? { authorization } : {}) });
const patch = (name: string, body: string, contentType: string, path = `${PVS}/${FIXTURE_PV}`): HostileRequest => ({ name, method: 'PATCH', path, body, contentType });
const capacity = (storage: unknown): Record<string, unknown> => pv('hostile-q', { capacity: { storage } });

const malformedJson: HostileRequest[] = [
  post('json-truncated', '{"apiVersion":"v1","kind":"PersistentVolume","metadata":'),
  post('json-array', '[]'),
  post('json-string', '"PersistentVolume"'),
  post('json-number', '42'),
  post('json-true', 'true'),
  post('json-two-documents', `${json(pv('hostile-two'))}{"a":1}`),
  post('json-trailing-comma', '{"apiVersion":"v1","kind":"PersistentVolume",}'),
  post('json-single-quotes', "{'apiVersion':'v1'}"),
  post('json-nan', '{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"hostile-nan"},"spec":{"capacity":{"storage":NaN}}}'),
  post('json-comment', '// a comment\n{}'),
  { ...post('json-invalid-utf8', '{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"hostile-\x80\xff"}}'), bodyEncoding: 'latin1' },
  post('json-nul-in-name', json(pv('hostile\u0000nul'))),
  post('json-kind-number', '{"apiVersion":"v1","kind":5}'),
  post('json-metadata-array', '{"apiVersion":"v1","kind":"PersistentVolume","metadata":[]}'),
  post('json-spec-string', '{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"hostile-s"},"spec":"x"}'),
  post('json-labels-array', json(pv('hostile-l', {}, { labels: ['a'] }))),
  post('json-capacity-bool', json(capacity(true))),
  post('json-accessmodes-object', json(pv('hostile-am', { accessModes: { a: 1 } }))),
  post('json-empty-object', '{}'),
  post('yaml-tab-indent', 'apiVersion: v1\nkind: PersistentVolume\nmetadata:\n\tname: x\n', 'application/yaml'),
  post('yaml-two-documents', 'apiVersion: v1\nkind: PersistentVolume\n---\napiVersion: v1\n', 'application/yaml'),
];

const hugeBodies: HostileRequest[] = [
  post('body-over-3mib', json(pv('hostile-big', {}, { annotations: { a: 'x'.repeat(3 * 1024 * 1024) } }))),
  post('body-annotations-over-256kib', json(pv('hostile-ann', {}, { annotations: { a: 'x'.repeat(300 * 1024) } })), 'application/json', `${PVS}?dryRun=All`),
  post('body-array-nested-10001', `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"hostile-deep"},"x":${'['.repeat(10_001)}${']'.repeat(10_001)}}`),
  post('body-labels-10000', json(pv('hostile-many', {}, { labels: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 'v'])) })), 'application/json', `${PVS}?dryRun=All`),
  patch('merge-patch-nested-200', `{"metadata":{"annotations":${'{"a":'.repeat(200)}1${'}'.repeat(200)}}}`, 'application/merge-patch+json'),
];

const invalidNames: HostileRequest[] = [
  dryPost('name-uppercase', pv('Hostile-PV')),
  dryPost('name-254-chars', pv(`h${'x'.repeat(253)}`)),
  dryPost('name-with-slash', pv('hostile/pv')),
  dryPost('name-dotdot-in-body', pv('..')),
  dryPost('name-with-space', pv('hostile pv')),
  dryPost('name-missing', { ...pv(''), metadata: {} }),
  dryPost('name-only-dots-and-dashes', pv('.-.')),
  dryPost('name-namespace-on-cluster-scoped', pv('hostile-nsd', {}, { namespace: FIXTURE_NAMESPACE })),
  { name: 'claim-name-mismatch-path', method: 'PUT', path: `${CLAIMS}/other`, body: json({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: FIXTURE_CLAIM, namespace: FIXTURE_NAMESPACE }, spec: {} }), contentType: 'application/json' },
  dryPost('label-key-invalid', pv('hostile-lk', {}, { labels: { '-bad-': 'v' } })),
];

const absurdQuantities: HostileRequest[] = [
  dryPost('quantity-negative', capacity('-1Gi')),
  dryPost('quantity-zero', capacity('0')),
  dryPost('quantity-garbage', capacity('ten gigs')),
  dryPost('quantity-exponent-beyond-int32', capacity('1e2147483648')),
  dryPost('quantity-thousand-digits', capacity('1e1000')),
  dryPost('quantity-json-number', capacity(1073741824)),
  dryPost('quantity-json-huge-number', capacity(1e308)),
  dryPost('quantity-binary-capped', capacity('12345678901234567890123456789Ei')),
  dryPost('quantity-canonical-exponent', capacity('201000000000000000000000e400')),
  dryPost('quantity-nano-fraction', capacity('0.0000000001')),
  dryPost('quantity-empty', capacity('')),
];

const TOKEN = '{token}';
const tokens: HostileRequest[] = [
  get('token-wrong', PVS, 'Bearer not-the-token'),
  get('token-padded-trailing', PVS, `Bearer ${TOKEN} `),
  get('token-double-space', PVS, `Bearer  ${TOKEN}`),
  get('token-lowercase-scheme', PVS, `bearer ${TOKEN}`),
  get('token-basic-scheme', PVS, 'Basic YWRtaW46YWRtaW4='),
  get('token-empty', PVS, 'Bearer '),
  get('token-scheme-only', PVS, 'Bearer'),
  get('token-doubled', PVS, `Bearer ${TOKEN}${TOKEN}`),
];

const traversal: HostileRequest[] = [
  get('path-double-encoded-dots', `${CLAIMS}/%252e%252e`),
  get('path-claim-then-dotdot', `${CLAIMS}/${FIXTURE_CLAIM}/..`),
  get('path-backslash-dotdot', `${CLAIMS}/..%5c..%5cpersistentvolumes`),
  get('path-nul', `${PVS}/%00`),
  get('path-semicolon-param', `${PVS}/${FIXTURE_PV};x=y`),
  get('path-absolute-form', `https://elsewhere.example${PVS}/${FIXTURE_PV}`),
  get('path-namespace-dotdot-item', `/api/v1/namespaces/%2e%2e/persistentvolumeclaims/${FIXTURE_CLAIM}`),
  { name: 'path-delete-dot-namespace-claims', method: 'DELETE', path: '/api/v1/namespaces/./persistentvolumeclaims' },
  get('path-unicode-dots', `${CLAIMS}/%E2%80%A4%E2%80%A4`),
  get('path-very-long-name', `${PVS}/${'a'.repeat(8000)}`),
];

const selectors: HostileRequest[] = [
  get('label-selector-open-set', `${PVS}?labelSelector=a%20in%20(`),
  get('label-selector-no-key', `${PVS}?labelSelector=%3Db`),
  get('label-selector-bang-only', `${PVS}?labelSelector=!`),
  get('label-selector-trailing-comma', `${PVS}?labelSelector=a,`),
  get('label-selector-gt-not-int', `${PVS}?labelSelector=a%3Ex`),
  get('field-selector-no-operator', `${PVS}?fieldSelector=metadata.name`),
  get('field-selector-unsupported-field', `${PVS}?fieldSelector=spec.hostPath.path%3D%2Ftmp`),
  get('field-selector-bad-escape', `${PVS}?fieldSelector=metadata.name%3Da%5Cb`),
  get('field-selector-double-equals-value', `${PVS}?fieldSelector=metadata.name%3Da%3Db`),
];

const resourceVersionsAndLimits: HostileRequest[] = [
  get('rv-not-a-number-get', `${PVS}/${FIXTURE_PV}?resourceVersion=abc`),
  get('rv-negative-list', `${PVS}?resourceVersion=-1`),
  get('rv-match-without-rv', `${PVS}?resourceVersionMatch=Exact`),
  get('rv-match-unknown', `${PVS}?resourceVersion=1&resourceVersionMatch=Newest`),
  get('rv-exact-zero', `${PVS}?resourceVersion=0&resourceVersionMatch=Exact`),
  get('limit-overflow', `${PVS}?limit=99999999999999999999`),
  get('limit-float', `${PVS}?limit=1.5`),
  get('continue-garbage', `${PVS}?limit=1&continue=garbage`),
  get('timeout-seconds-negative-watch', `${PVS}?watch=1&timeoutSeconds=-1&resourceVersion=abc`),
  get('send-initial-events-list', `${PVS}?sendInitialEvents=true`),
  { name: 'put-rv-not-a-number', method: 'PUT', path: `${PVS}/${FIXTURE_PV}`, body: json({ ...pv(FIXTURE_PV), metadata: { name: FIXTURE_PV, resourceVersion: 'abc' } }), contentType: 'application/json' },
  { name: 'delete-precondition-rv-mismatch', method: 'DELETE', path: `${PVS}/${FIXTURE_PV}`, body: json({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '1' } }), contentType: 'application/json' },
  { name: 'delete-grace-negative-string', method: 'DELETE', path: `${PVS}/${FIXTURE_PV}?gracePeriodSeconds=x` },
];

const patches: HostileRequest[] = [
  patch('json-patch-not-array', '{"op":"add"}', 'application/json-patch+json'),
  patch('json-patch-copy-into-missing-parent', '[{"op":"copy","from":"/spec/accessModes","path":"/spec/nope/x"}]', 'application/json-patch+json'),
  patch('json-patch-move-into-itself', '[{"op":"move","from":"/spec","path":"/spec/x"}]', 'application/json-patch+json'),
  patch('json-patch-index-past-end', '[{"op":"add","path":"/spec/accessModes/5","value":"ReadOnlyMany"}]', 'application/json-patch+json'),
  patch('json-patch-proto', '[{"op":"add","path":"/__proto__/x","value":1}]', 'application/json-patch+json'),
  patch('merge-patch-array', '[1,2]', 'application/merge-patch+json'),
  patch('strategic-patch-bad-directive', '{"spec":{"$patch":"explode"}}', 'application/strategic-merge-patch+json'),
  patch('patch-unknown-type', '{}', 'application/x-evil-patch'),
];

export const HOSTILE_REQUESTS: HostileRequest[] = [
  ...malformedJson, ...hugeBodies, ...invalidNames, ...absurdQuantities, ...tokens, ...traversal, ...selectors, ...resourceVersionsAndLimits, ...patches,
  ...LONG_LISTS,
];
