/**
 * Field ownership of what decoding and defaulting fill in, as kube-apiserver's field manager
 * computes it: the defaulted new object against the kind's empty Go object (by-value structs
 * present, strings without omitempty "", times held by value null), with the list and map
 * markers of the published OpenAPI definitions. Runs against the embedded server, or against a
 * real kube-apiserver under `npm run test:cluster`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer, type TestApiServer, type TestServerAddress } from '../../../../test/helpers/apiserver.js';
import { api } from '../http-client.js';

let server: TestApiServer;
let address: TestServerAddress;
const NS = 'ownership-of-defaults';

before(async () => {
  server = await startTestApiServer();
  address = server.server;
  await api(address, 'POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } });
});

after(async () => {
  await api(address, 'DELETE', `/api/v1/namespaces/${NS}`);
  await server.stop();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers
function fieldsOf(obj: any, manager: string): unknown {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers
  return obj.metadata.managedFields.find((e: any) => e.manager === manager)?.fieldsV1;
}

test('a core Event created without reporting fields leaves their empty values owned by nobody', async () => {
  const body = {
    metadata: { name: 'e' },
    involvedObject: { kind: 'Pod', name: 'p', namespace: NS },
    reason: 'R', message: 'm', type: 'Normal', source: { component: 'c' },
  };
  const res = await api(address, 'POST', `/api/v1/namespaces/${NS}/events?fieldManager=writer`, { body });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.json.reportingComponent, '');
  assert.deepEqual(fieldsOf(res.json, 'writer'), {
    'f:involvedObject': {}, 'f:message': {}, 'f:reason': {}, 'f:source': { 'f:component': {} }, 'f:type': {},
  });
});

test('a Service is owned per port by port and protocol, its selector whole, and its spec without an entry of its own', async () => {
  const body = { metadata: { name: 's' }, spec: { selector: { app: 'x' }, ports: [{ port: 80, targetPort: 8080 }] } };
  const res = await api(address, 'POST', `/api/v1/namespaces/${NS}/services?fieldManager=writer`, { body });
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(fieldsOf(res.json, 'writer'), {
    'f:spec': {
      'f:internalTrafficPolicy': {},
      'f:ports': { '.': {}, 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:protocol': {}, 'f:targetPort': {} } },
      'f:selector': {},
      'f:sessionAffinity': {},
      'f:type': {},
    },
  });
});

test('a status writer that adds a condition without times owns the null times it is stored with', async () => {
  const pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } };
  assert.equal((await api(address, 'POST', `/api/v1/namespaces/${NS}/pods`, { body: pod })).status, 201);
  const patch = { status: { conditions: [{ type: 'Ready', status: 'False' }] } };
  const res = await api(address, 'PATCH', `/api/v1/namespaces/${NS}/pods/p/status?fieldManager=kubelet`, {
    rawBody: JSON.stringify(patch), headers: { 'Content-Type': 'application/merge-patch+json' },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.status.conditions[0].lastProbeTime, null);
  assert.deepEqual(fieldsOf(res.json, 'kubelet'), {
    'f:status': {
      'f:conditions': {
        '.': {},
        'k:{"type":"Ready"}': { '.': {}, 'f:lastProbeTime': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} },
      },
    },
  });
});

test('a Deployment\'s by-value template, its metadata and spec and the strategy have no entry of their own; a ReplicationController\'s pointer template has', async () => {
  const template = { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  const containerFields = { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:resources': {}, 'f:terminationMessagePath': {}, 'f:terminationMessagePolicy': {} };
  const podSpecFields = { 'f:dnsPolicy': {}, 'f:restartPolicy': {}, 'f:schedulerName': {}, 'f:securityContext': {}, 'f:terminationGracePeriodSeconds': {} };
  const deployment = await api(address, 'POST', `/apis/apps/v1/namespaces/${NS}/deployments?fieldManager=writer`, {
    body: { metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'x' } }, template } },
  });
  assert.equal(deployment.status, 201, deployment.text);
  assert.deepEqual(fieldsOf(deployment.json, 'writer'), {
    'f:spec': {
      'f:progressDeadlineSeconds': {}, 'f:replicas': {}, 'f:revisionHistoryLimit': {}, 'f:selector': {},
      'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
      'f:template': {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': { 'f:containers': { 'k:{"name":"c"}': containerFields }, ...podSpecFields },
      },
    },
  });
  const rc = await api(address, 'POST', `/api/v1/namespaces/${NS}/replicationcontrollers?fieldManager=writer`, {
    body: { metadata: { name: 'rc' }, spec: { selector: { app: 'x' }, template } },
  });
  assert.equal(rc.status, 201, rc.text);
  assert.deepEqual(fieldsOf(rc.json, 'writer'), {
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    'f:spec': {
      'f:replicas': {}, 'f:selector': {},
      'f:template': {
        '.': {},
        'f:metadata': { '.': {}, 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': { '.': {}, 'f:containers': { '.': {}, 'k:{"name":"c"}': containerFields }, ...podSpecFields },
      },
    },
  });
  await api(address, 'DELETE', `/api/v1/namespaces/${NS}/replicationcontrollers/rc`, { body: { propagationPolicy: 'Background' } });
});
