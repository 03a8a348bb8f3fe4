/**
 * What kubectl assumes of a server beyond the stored resources, each answered as kube-apiserver
 * v1.37 answers (texts taken from it): access and identity reviews, aggregated discovery,
 * per-kind field labels, /metrics, the health endpoints and Services.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { EMBEDDED_AUTHZ_NOTE } from '@pv-controller/apiserver/api/identity.js';
import protobuf from 'protobufjs/minimal.js';
import { startEmbeddedTestApiServer, type EmbeddedTestApiServer } from '../../../test/helpers/apiserver.js';
import { api, watch } from './http-client.js';

let t: EmbeddedTestApiServer;
before(async () => {
  t = await startEmbeddedTestApiServer();
});
after(async () => {
  await t.stop();
});

const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

test('a SelfSubjectAccessReview is allowed without a reason, echoes the attributes in their Go order, and records who posted them', async () => {
  const r = await api(t.server, 'POST', `${SSAR}?fieldManager=asker`, { body: { spec: { resourceAttributes: { resource: 'persistentvolumes', verb: 'create' } } } });
  assert.equal(r.status, 201);
  assert.equal(r.json.kind, 'SelfSubjectAccessReview');
  assert.deepEqual(Object.keys(r.json.spec.resourceAttributes), ['verb', 'resource']);
  assert.deepEqual(r.json.status, { allowed: true });
  const [entry] = r.json.metadata.managedFields;
  assert.deepEqual([entry.manager, entry.operation, entry.apiVersion], ['asker', 'Update', 'authorization.k8s.io/v1']);
  assert.deepEqual(entry.fieldsV1, { 'f:spec': { 'f:resourceAttributes': { '.': {}, 'f:resource': {}, 'f:verb': {} } } });
});

test('discovery lists the review resources without a storageVersionHash, as resources nothing stores', async () => {
  for (const path of ['/apis/authorization.k8s.io/v1', '/apis/authentication.k8s.io/v1']) {
    const r = await api(t.server, 'GET', path);
    assert.ok(r.json.resources.length > 0);
    for (const resource of r.json.resources) assert.equal(resource.storageVersionHash, undefined, `${path} ${resource.name}`);
  }
});

test('access reviews are refused as kube-apiserver refuses them: no or both attributes, metadata, other verbs and paths', async () => {
  const none = await api(t.server, 'POST', SSAR, { body: { spec: {} } });
  assert.equal(none.status, 422);
  assert.equal(none.json.message, '.authorization.k8s.io "" is invalid: spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified');
  assert.deepEqual(Object.keys(none.json.details), ['group', 'causes']);
  const both = await api(t.server, 'POST', SSAR, { body: { spec: { resourceAttributes: { verb: 'get' }, nonResourceAttributes: { verb: 'get', path: '/x' } } } });
  assert.match(both.json.message, /spec: Invalid value: \{"Path":"\/x","Verb":"get"\}: exactly one of/);
  const named = await api(t.server, 'POST', SSAR, { body: { metadata: { name: 'foo' }, spec: { resourceAttributes: { verb: 'get' } } } });
  assert.match(named.json.message, /metadata: Invalid value: \{"name":"foo"\}: must be empty$/);
  assert.equal((await api(t.server, 'GET', SSAR)).status, 405);
  assert.equal((await api(t.server, 'POST', '/apis/authorization.k8s.io/v1/namespaces/default/selfsubjectaccessreviews', { body: {} })).status, 404);
  const pod = await api(t.server, 'POST', SSAR, { body: { apiVersion: 'v1', kind: 'Pod' } });
  assert.equal(pod.json.message, 'Pod in version "v1" cannot be handled as a SelfSubjectAccessReview: converting (v1.Pod) to (authorization.SelfSubjectAccessReview): unknown conversion');
  const rules = await api(t.server, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { body: { spec: {} } });
  assert.deepEqual([rules.status, rules.json.message], [400, 'no namespace on request']);
});

/** A protobuf field: tag, then length-delimited bytes. */
function field(w: protobuf.Writer, n: number, write: (inner: protobuf.Writer) => void): void {
  const inner = protobuf.Writer.create();
  write(inner);
  w.uint32((n << 3) | 2).bytes(inner.finish());
}

test('a protobuf SelfSubjectAccessReview (what kubectl auth can-i posts) is decoded and answered in JSON', async () => {
  const review = protobuf.Writer.create();
  field(review, 1, () => {});
  field(review, 2, (spec) => field(spec, 1, (attrs) => attrs.uint32((2 << 3) | 2).string('create').uint32((5 << 3) | 2).string('persistentvolumes')));
  const envelope = protobuf.Writer.create();
  field(envelope, 1, (tm) => tm.uint32((1 << 3) | 2).string('authorization.k8s.io/v1').uint32((2 << 3) | 2).string('SelfSubjectAccessReview'));
  envelope.uint32((2 << 3) | 2).bytes(review.finish());
  const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), envelope.finish()]);
  const r = await api(t.server, 'POST', SSAR, { rawBody: body, headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf', Accept: 'application/vnd.kubernetes.protobuf,application/json' } });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(r.json.spec, { resourceAttributes: { verb: 'create', resource: 'persistentvolumes' } });
  assert.equal(r.json.status.allowed, true);
});

test('a SelfSubjectRulesReview grants everything beside the bootstrap roles of every user, and a SelfSubjectReview names the token user', async () => {
  const rules = await api(t.server, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { body: { spec: { namespace: 'default' } } });
  assert.deepEqual(rules.json.status.resourceRules, [
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
    { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
  ]);
  assert.deepEqual(rules.json.status.nonResourceRules.map((r: { verbs: string[]; nonResourceURLs: string[] }) => [r.verbs, r.nonResourceURLs.length]), [
    [['get'], 11], [['get'], 5], [['*'], 1],
  ]);
  assert.equal(rules.json.status.incomplete, false);
  const who = await api(t.server, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: {} });
  assert.equal(who.status, 201);
  assert.deepEqual(who.json.status.userInfo, {
    username: 'pv-controller-admin',
    groups: ['system:masters', 'system:authenticated'],
    extra: { 'pv-controller.io/authorization': [EMBEDDED_AUTHZ_NOTE] },
  });
});

test('an impersonated user gets what a cluster without RBAC bindings gives: the self reviews and discovery, a Forbidden for the rest', async () => {
  const as = { 'Impersonate-User': 'nobody' };
  const who = await api(t.server, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: {}, headers: as });
  assert.deepEqual(who.json.status.userInfo, { username: 'nobody', groups: ['system:authenticated'] });
  const can = await api(t.server, 'POST', SSAR, { body: { spec: { resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'default' } } }, headers: as });
  assert.equal(can.json.status.allowed, false);
  const canReview = await api(t.server, 'POST', SSAR, { body: { spec: { resourceAttributes: { verb: 'create', group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews' } } }, headers: as });
  assert.equal(canReview.json.status.allowed, true);
  const list = await api(t.server, 'GET', '/api/v1/namespaces/default/persistentvolumeclaims', { headers: as });
  assert.equal(list.status, 403);
  assert.deepEqual(list.json, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: 'persistentvolumeclaims is forbidden: User "nobody" cannot list resource "persistentvolumeclaims" in API group "" in the namespace "default"',
    reason: 'Forbidden', details: { kind: 'persistentvolumeclaims' }, code: 403,
  });
  const pv = await api(t.server, 'GET', '/api/v1/persistentvolumes/x', { headers: as });
  assert.equal(pv.json.message, 'persistentvolumes "x" is forbidden: User "nobody" cannot get resource "persistentvolumes" in API group "" at the cluster scope');
  assert.equal((await api(t.server, 'GET', '/apis', { headers: as })).status, 200, 'discovery stays open to every authenticated user');
  const metrics = await api(t.server, 'GET', '/metrics', { headers: as });
  assert.equal(metrics.status, 403);
  assert.equal(metrics.json.message, 'forbidden: User "nobody" cannot get path "/metrics"');
  const masters = await api(t.server, 'GET', '/apis/storage.k8s.io/v1/storageclasses', { headers: { ...as, 'Impersonate-Group': 'system:masters' } });
  assert.equal(masters.status, 200, 'impersonating system:masters may do everything');
  const groupOnly = await api(t.server, 'GET', '/apis/storage.k8s.io/v1/storageclasses', { headers: { 'Impersonate-Group': 'g' } });
  assert.equal(groupOnly.status, 500);
  assert.match(groupOnly.json.message, /requested \[Group=g\] without impersonating a user/);
});

test('/apis and /api answer aggregated discovery v2 with its Content-Type, Vary and ETag, and 304 for a current ETag', async () => {
  const r = await api(t.server, 'GET', '/apis', { headers: { Accept: `${AGGREGATED},application/json` } });
  assert.equal(r.headers['content-type'], AGGREGATED);
  assert.equal(r.headers.vary, 'Accept');
  assert.equal(r.headers['cache-control'], 'public');
  assert.match(String(r.headers.etag), /^"[0-9A-F]{128}"$/);
  const storage = r.json.items.find((i: { metadata: { name?: string } }) => i.metadata.name === 'storage.k8s.io');
  assert.deepEqual(storage.versions[0].resources.find((x: { resource: string }) => x.resource === 'storageclasses'), {
    resource: 'storageclasses', responseKind: { group: '', version: '', kind: 'StorageClass' }, scope: 'Cluster',
    singularResource: 'storageclass', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['sc'],
  });
  assert.equal(storage.versions[0].freshness, 'Current');
  const again = await api(t.server, 'GET', '/apis', { headers: { Accept: AGGREGATED, 'If-None-Match': String(r.headers.etag) } });
  assert.equal(again.status, 304);
  const core = await api(t.server, 'GET', '/api', { headers: { Accept: AGGREGATED } });
  const pv = core.json.items[0].versions[0].resources.find((x: { resource: string }) => x.resource === 'persistentvolumes');
  assert.deepEqual(pv.subresources, [{ subresource: 'status', responseKind: { group: '', version: '', kind: 'PersistentVolume' }, verbs: ['get', 'patch', 'update'] }]);
});

test('discovery offered only a form it does not serve is a 406; with plain JSON offered too, the legacy document', async () => {
  const v2beta1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
  const refused = await api(t.server, 'GET', '/apis', { headers: { Accept: v2beta1 } });
  assert.deepEqual([refused.status, refused.json.reason], [406, 'NotAcceptable']);
  assert.equal(refused.json.message, 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  const legacy = await api(t.server, 'GET', '/apis', { headers: { Accept: `${v2beta1},application/json` } });
  assert.equal(legacy.json.kind, 'APIGroupList');
  assert.equal((await api(t.server, 'GET', '/api/v1', { headers: { Accept: AGGREGATED } })).status, 406);
});

test('field selectors take the labels each kind converts, aliases included, and refuse the rest in its words', async () => {
  const pvc = await api(t.server, 'GET', '/api/v1/namespaces/default/persistentvolumeclaims?fieldSelector=status.phase%3DBound');
  assert.equal(pvc.json.message, '"status.phase" is not a known field selector: only "metadata.name", "metadata.namespace"');
  const ns = await api(t.server, 'GET', '/api/v1/namespaces?fieldSelector=name%3Ddefault');
  assert.equal(ns.json.message, 'field label not supported: name');
  const node = await api(t.server, 'GET', '/api/v1/nodes?fieldSelector=metadata.namespace%3Dx');
  assert.equal(node.json.message, 'field label not supported: metadata.namespace');
  const v1Event = await api(t.server, 'GET', '/apis/events.k8s.io/v1/events?fieldSelector=deprecatedSource%3Dx');
  assert.equal(v1Event.json.message, 'field label not supported: deprecatedSource');
  await api(t.server, 'POST', '/api/v1/namespaces/default/pods', { body: { metadata: { name: 'on-n1' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] } } });
  const host = await api(t.server, 'GET', '/api/v1/namespaces/default/pods?fieldSelector=spec.host%3Dn1');
  assert.deepEqual(host.json.items.map((p: { metadata: { name: string } }) => p.metadata.name), ['on-n1']);
  const podIPs = await api(t.server, 'GET', '/api/v1/namespaces/default/pods?fieldSelector=status.podIPs%3D10.1.1.1');
  assert.deepEqual([podIPs.status, podIPs.json.items.length], [200, 0]);
});

test('/metrics counts requests, open watches and stored objects under kube-apiserver\'s names', async () => {
  await api(t.server, 'GET', '/api/v1/persistentvolumes');
  const stream = await watch(t.server, '/api/v1/namespaces/default/persistentvolumeclaims?watch=true');
  try {
    const r = await api(t.server, 'GET', '/metrics');
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.match(r.text, /^apiserver_request_total\{verb="LIST",dry_run="",group="",version="v1",resource="persistentvolumes",subresource="",scope="cluster",component="apiserver",code="200"\} 1$/m);
    assert.match(r.text, /^apiserver_request_duration_seconds_bucket\{le="0\.005",verb="LIST",.*resource="persistentvolumes"/m);
    assert.match(r.text, /^apiserver_longrunning_requests\{verb="WATCH",group="",version="v1",resource="persistentvolumeclaims",subresource="",scope="namespace",component="apiserver"\} 1$/m);
    assert.match(r.text, /^apiserver_resource_objects\{group="",resource="namespaces"\} 4$/m);
    assert.equal((await api(t.server, 'GET', '/metrics', { token: null })).status, 401);
  } finally {
    stream.close();
  }
});

test('/readyz, /livez and /healthz answer ok, list their checks with ?verbose, serve each check, and honour ?exclude', async () => {
  const ready = await api(t.server, 'GET', '/readyz?verbose', { token: null });
  assert.equal(ready.text, '[+]ping ok\n[+]log ok\n[+]storage ok\n[+]shutdown ok\nreadyz check passed\n');
  const live = await api(t.server, 'GET', '/livez?verbose&exclude=log', { token: null });
  assert.equal(live.text, '[+]ping ok\n[+]log excluded: ok\n[+]storage ok\nlivez check passed\n');
  assert.equal((await api(t.server, 'GET', '/healthz', { token: null })).text, 'ok');
  assert.equal((await api(t.server, 'GET', '/livez/storage')).text, 'ok');
  const missing = await api(t.server, 'GET', '/livez/shutdown');
  assert.deepEqual([missing.status, missing.text], [404, '404 page not found\n']);
});

test('the kubernetes Service points at the server; a new Service gets defaults and a free ClusterIP above the 16 kept for static allocation', async () => {
  const k = await api(t.server, 'GET', '/api/v1/namespaces/default/services/kubernetes');
  assert.deepEqual(k.json.spec.ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: t.server.port }]);
  assert.equal(k.json.spec.clusterIP, '10.0.0.1');
  assert.equal(k.json.spec.ipFamilyPolicy, 'SingleStack');
  assert.deepEqual(k.json.metadata.managedFields.map((e: { manager: string }) => e.manager), ['kube-apiserver'], 'written by the server itself');
  const svc = await api(t.server, 'POST', '/api/v1/namespaces/default/services', { body: { metadata: { name: 'web' }, spec: { ports: [{ port: 80 }], selector: { app: 'x' } } } });
  assert.equal(svc.status, 201, svc.text);
  const ip = svc.json.spec.clusterIP as string;
  assert.match(ip, /^10\.0\.0\.\d+$/);
  assert.ok(Number(ip.split('.')[3]) >= 17 && Number(ip.split('.')[3]) <= 254, ip);
  assert.deepEqual(svc.json.spec, {
    ports: [{ protocol: 'TCP', port: 80, targetPort: 80 }], selector: { app: 'x' }, clusterIP: ip, clusterIPs: [ip], type: 'ClusterIP',
    sessionAffinity: 'None', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster',
  });
  assert.deepEqual(svc.json.status, { loadBalancer: {} });
  const np = await api(t.server, 'POST', '/api/v1/namespaces/default/services', { body: { metadata: { name: 'np' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } } });
  assert.deepEqual([np.json.spec.ports[0].nodePort, np.json.spec.externalTrafficPolicy], [30000, 'Cluster']);
  const put = await api(t.server, 'PUT', '/api/v1/namespaces/default/services/web', { body: { metadata: { name: 'web' }, spec: { ports: [{ port: 81 }] } } });
  assert.equal(put.json.spec.clusterIP, ip, 'an update that leaves out the ClusterIP keeps it');
});

test('Services are validated with kube-apiserver\'s causes, and a taken or foreign ClusterIP is refused', async () => {
  const post = (body: unknown) => api(t.server, 'POST', '/api/v1/namespaces/default/services', { body });
  const ports = await post({ metadata: { name: 'bad' }, spec: { ports: [{ port: 0 }, { port: 80 }] } });
  assert.equal(ports.json.message, 'Service "bad" is invalid: [spec.ports[0].name: Required value, spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive, spec.ports[1].name: Required value]');
  assert.equal((await post({ metadata: { name: 'bad' }, spec: {} })).json.message, 'Service "bad" is invalid: spec.ports: Required value');
  assert.equal((await post({ metadata: { name: 'bad' }, spec: { type: 'ExternalName' } })).json.message, 'Service "bad" is invalid: spec.externalName: Required value');
  const taken = await post({ metadata: { name: 'bad' }, spec: { clusterIP: '10.0.0.1', ports: [{ port: 80 }] } });
  assert.equal(taken.json.message, 'Service "bad" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.1"]: failed to allocate IP 10.0.0.1: provided IP is already allocated');
  const foreign = await post({ metadata: { name: 'bad' }, spec: { clusterIP: '192.168.9.9', ports: [{ port: 80 }] } });
  assert.match(foreign.json.message, /failed to allocate IP 192\.168\.9\.9: the provided network does not match the current range$/);
  const headless = await post({ metadata: { name: 'hl' }, spec: { clusterIP: 'None' } });
  assert.deepEqual([headless.json.spec.clusterIPs, headless.json.spec.ipFamilyPolicy], [['None'], 'RequireDualStack']);
});
