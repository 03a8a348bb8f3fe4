import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { controllerKubeConfig, startTestApiServer, type TestApiServer } from '../../helpers/apiserver.js';
import { KubeApiClient } from '../../../src/kube-client/kube-api-client.js';
import { RestTransport } from '../../../src/kube-client/transport.js';
import { KubeEventRecorder } from '../../../src/controller/runtime/events.js';
import type { CoreEvent, ObjectList, PersistentVolume } from '@pv-controller/kube/types.js';
import { newClaim, newVolume, silentLog } from '../../helpers/objects.js';

let srv: TestApiServer;
let transport: RestTransport;
/** Reads with the admin's credentials: listing events is not the controller's to do. */
let adminTransport: RestTransport;
let api: KubeApiClient;
before(async () => {
  srv = await startTestApiServer();
  transport = new RestTransport(controllerKubeConfig(srv), { qps: 0, burst: 0 });
  adminTransport = new RestTransport(srv.kc, { qps: 0, burst: 0 });
  api = new KubeApiClient(transport);
});
after(async () => {
  transport.close();
  adminTransport.close();
  await srv.stop();
});

async function eventsIn(ns: string): Promise<CoreEvent[]> {
  const list = await adminTransport.request<ObjectList<CoreEvent>>({ method: 'GET', verb: 'list', path: `/api/v1/namespaces/${ns}/events` });
  return list.items;
}

test('a repeated event bumps count on one Event instead of creating another', async () => {
  const claim = { ...newClaim('default', 'c-events'), metadata: { namespace: 'default', name: 'c-events', uid: 'uid-1', resourceVersion: '5' } };
  const recorder = new KubeEventRecorder(api, silentLog, { host: 'test-host' });
  for (let i = 0; i < 3; i++) recorder.event(claim, 'Normal', 'FailedBinding', 'no persistent volumes available');
  recorder.event(claim, 'Warning', 'ProvisioningFailed', 'boom');
  await recorder.flush();
  const events = (await eventsIn('default')).filter((e) => e.involvedObject.name === 'c-events');
  const binding = events.filter((e) => e.reason === 'FailedBinding');
  assert.equal(binding.length, 1);
  assert.equal(binding[0].count, 3);
  assert.equal(binding[0].type, 'Normal');
  assert.equal(binding[0].source?.component, 'persistentvolume-controller');
  assert.equal(binding[0].reportingComponent, 'persistentvolume-controller');
  assert.deepEqual(binding[0].involvedObject, {
    kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: 'default', name: 'c-events', uid: 'uid-1', resourceVersion: '5',
  });
  assert.equal(events.filter((e) => e.reason === 'ProvisioningFailed').length, 1, 'a different reason is its own Event');
  assert.equal(recorder.counts.aggregated, 2);
});

test('events about a PersistentVolume go to the default namespace', async () => {
  const pv: PersistentVolume = { ...newVolume('pv-events'), metadata: { name: 'pv-events', uid: 'uid-pv' } };
  const recorder = new KubeEventRecorder(api, silentLog);
  recorder.event(pv, 'Warning', 'VolumeFailedDelete', 'disk busy');
  await recorder.flush();
  const ev = (await eventsIn('default')).find((e) => e.involvedObject.name === 'pv-events');
  assert.equal(ev?.reason, 'VolumeFailedDelete');
  assert.equal(ev?.involvedObject.kind, 'PersistentVolume');
});

test('a flood of events about one object is cut by the spam filter', async () => {
  const claim = { ...newClaim('default', 'c-flood'), metadata: { namespace: 'default', name: 'c-flood', uid: 'uid-2' } };
  const recorder = new KubeEventRecorder(api, silentLog, { spamBurst: 5, spamQps: 0.0001 });
  for (let i = 0; i < 20; i++) recorder.event(claim, 'Normal', 'Reason', `message ${i}`);
  await recorder.flush();
  assert.equal(recorder.counts.dropped, 15);
  assert.equal((await eventsIn('default')).filter((e) => e.involvedObject.name === 'c-flood').length, 5);
});

test('a failing event write is logged and dropped, never thrown at the caller', async () => {
  const refusing = new KubeApiClient(transport, { writeGuard: () => 'not the leader' });
  const recorder = new KubeEventRecorder(refusing, silentLog);
  const claim = { ...newClaim('default', 'c-fail'), metadata: { namespace: 'default', name: 'c-fail', uid: 'uid-3' } };
  assert.doesNotThrow(() => recorder.event(claim, 'Normal', 'X', 'y'));
  await recorder.flush();
  assert.equal(recorder.counts.failed, 1);
});
