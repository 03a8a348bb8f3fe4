/**
 * What kubectl assumes beyond the stored resources: access and identity reviews, per-kind field
 * labels, aggregated-discovery negotiation, health checks and Services.
 */
import type { Case } from './case.js';
import { defineCase, get, http, post, withQuery } from './fixtures.js';

const REVIEWS = 'reviews';
const FIELDS = 'field labels';
const DISCOVERY = 'discovery';
const SERVICES = 'services';
const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
const SERVICE_PATH = '/api/v1/namespaces/{ns}/services';

const review = (id: string, title: string, body: unknown, path = SSAR): Case => defineCase(id, REVIEWS, title, post(path, body));

const reviews: Case[] = [
  review('review-ssar-allowed', 'a SelfSubjectAccessReview the admin may do', { spec: { resourceAttributes: { verb: 'create', resource: 'persistentvolumes' } } }),
  review('review-ssar-empty-spec', 'a SelfSubjectAccessReview without attributes', { spec: {} }),
  review('review-ssar-both', 'a SelfSubjectAccessReview with both kinds of attributes', { spec: { resourceAttributes: { verb: 'get' }, nonResourceAttributes: { verb: 'get', path: '/x' } } }),
  review('review-ssar-wrong-kind', 'a Pod posted as a SelfSubjectAccessReview', { apiVersion: 'v1', kind: 'Pod', spec: { resourceAttributes: { verb: 'get' } } }),
  defineCase('review-ssar-get', REVIEWS, 'GET on selfsubjectaccessreviews', get(SSAR)),
  review('review-ssrr-no-namespace', 'a SelfSubjectRulesReview without a namespace', { spec: {} }, '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews'),
  review('review-ssrr', 'a SelfSubjectRulesReview of the admin', { spec: { namespace: 'default' } }, '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews'),
  review('review-ssr', 'a SelfSubjectReview (kubectl auth whoami)', {}, '/apis/authentication.k8s.io/v1/selfsubjectreviews'),
];

const field = (id: string, path: string, selector: string): Case =>
  defineCase(id, FIELDS, `fieldSelector ${selector} on ${path}`, get(withQuery(path, `fieldSelector=${encodeURIComponent(selector)}`)));

const fields: Case[] = [
  field('field-label-ns-name', '/api/v1/namespaces', 'name=default'),
  field('field-label-node-namespace', '/api/v1/nodes', 'metadata.namespace=x'),
  field('field-label-pvc-phase', '/api/v1/namespaces/{ns}/persistentvolumeclaims', 'status.phase=Bound'),
  field('field-label-pv-name', '/api/v1/persistentvolumes', 'name=x'),
  field('field-label-pod-host', '/api/v1/namespaces/{ns}/pods', 'spec.host=nowhere'),
  field('field-label-pod-ips', '/api/v1/namespaces/{ns}/pods', 'status.podIPs=10.9.9.9'),
  field('field-label-eventv1-source', '/apis/events.k8s.io/v1/namespaces/{ns}/events', 'deprecatedSource=x'),
  field('field-label-service-type', SERVICE_PATH, 'spec.type=ClusterIP'),
  field('field-label-service-bad', SERVICE_PATH, 'spec.ports=80'),
];

const discovery: Case[] = [
  defineCase('discovery-v2beta1-only', DISCOVERY, 'aggregated discovery v2beta1 alone (gone in 1.37)', get('/apis', { accept: V2BETA1 })),
  defineCase('discovery-v2beta1-fallback', DISCOVERY, 'aggregated discovery v2beta1 with plain JSON offered too', get('/apis', { accept: `${V2BETA1},application/json` }), {
    view: { kind: 'groups', names: ['storage.k8s.io'] },
  }),
  defineCase('discovery-aggregated-group-version', DISCOVERY, 'aggregated discovery asked of a group version', get('/api/v1', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' })),
  defineCase('discovery-core-services', DISCOVERY, '/api/v1 lists services', get('/api/v1'), { view: { kind: 'resources', names: ['services', 'services/status'] } }),
  defineCase('discovery-authorization-v1', DISCOVERY, '/apis/authorization.k8s.io/v1 lists the self reviews', get('/apis/authorization.k8s.io/v1'), {
    view: { kind: 'resources', names: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
  }),
  defineCase('discovery-authentication-v1', DISCOVERY, '/apis/authentication.k8s.io/v1 lists selfsubjectreviews', get('/apis/authentication.k8s.io/v1'), {
    view: { kind: 'resources', names: ['selfsubjectreviews'] },
  }),
  defineCase('health-readyz-verbose', DISCOVERY, '/readyz?verbose', get('/readyz?verbose')),
  defineCase('health-livez-unknown-check', DISCOVERY, 'a health check nobody has', get('/livez/bogus')),
];

const service = (id: string, title: string, spec: unknown): Case =>
  defineCase(id, SERVICES, title, post(SERVICE_PATH, { metadata: { name: `svc-${id}` }, spec }), { resource: 'Service' });

const services: Case[] = [
  service('svc-create', 'a Service with a selector and one port', { selector: { app: 'x' }, ports: [{ port: 80, targetPort: 8080 }] }),
  service('svc-create-external-name', 'an ExternalName Service', { type: 'ExternalName', externalName: 'example.com' }),
  service('svc-create-headless', 'a headless Service without a selector', { clusterIP: 'None' }),
  service('svc-invalid-ports', 'a Service with a bad port and unnamed ports', { ports: [{ port: 0 }, { port: 80 }] }),
  service('svc-invalid-no-ports', 'a Service without ports', {}),
  service('svc-invalid-type', 'a Service of an unknown type and protocol', { type: 'Foo', ports: [{ port: 80, protocol: 'XX' }] }),
  service('svc-invalid-external-name', 'an ExternalName Service without externalName', { type: 'ExternalName' }),
  service('svc-taken-cluster-ip', 'a Service asking for the kubernetes Service\'s IP', { clusterIP: '10.0.0.1', ports: [{ port: 80 }] }),
  service('svc-foreign-cluster-ip', 'a Service asking for an IP outside the range', { clusterIP: '192.168.9.9', ports: [{ port: 80 }] }),
  defineCase('svc-kubernetes', SERVICES, 'the kubernetes Service in default', get('/api/v1/namespaces/default/services/kubernetes'), { resource: 'Service' }),
  defineCase('svc-update-missing', SERVICES, 'a PUT of a Service that does not exist', http('PUT', `${SERVICE_PATH}/absent`, { metadata: { name: 'absent' }, spec: { ports: [{ port: 80 }] } }), { resource: 'Service' }),
];

export const surfaceCases: Case[] = [...reviews, ...fields, ...discovery, ...services];
