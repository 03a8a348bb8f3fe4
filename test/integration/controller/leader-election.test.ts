import { test } from 'node:test';
import assert from 'node:assert/strict';
import { controllerKubeConfig, startTestApiServer } from '../../helpers/apiserver.js';
import { KubeApiClient, WriteRefusedError } from '../../../src/kube-client/kube-api-client.js';
import { RestTransport } from '../../../src/kube-client/transport.js';
import { LeaderElector, microTime } from '../../../src/controller/runtime/leader-election.js';
import type { Lease } from '@pv-controller/kube/types.js';
import { newVolume, silentLog, waitFor } from '../../helpers/objects.js';

const TIMING = { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200 };

test('Lease timestamps carry six fractional digits', () => {
  assert.match(microTime(new Date('2026-01-02T03:04:05.123Z')), /^2026-01-02T03:04:05\.123000Z$/);
});

test('of two electors only one leads; when it stops, the other takes over and the old one refuses writes', async (t) => {
  const srv = await startTestApiServer();
  // The controller's own credentials and Lease name, so on the real control plane this also
  // proves deploy/rbac.yaml's leader-election Role.
  const transports = [0, 1].map(() => new RestTransport(controllerKubeConfig(srv), { qps: 0, burst: 0 }));
  const started: string[] = [];
  const stoppedLeading: string[] = [];
  const electors = ['a', 'b'].map(
    (id, i) =>
      new LeaderElector(
        transports[i],
        { namespace: 'kube-system', name: 'pv-controller', identity: id, ...TIMING },
        { onStartedLeading: () => started.push(id), onStoppedLeading: () => stoppedLeading.push(id) },
        silentLog,
      ),
  );
  t.after(async () => {
    await Promise.all(electors.map((e) => e.stop()));
    for (const tr of transports) tr.close();
    await srv.stop();
  });
  for (const e of electors) e.start();
  await waitFor(() => started.length === 1, 'a first leader');
  await new Promise((r) => setTimeout(r, TIMING.leaseDurationMs + 500));
  assert.equal(started.length, 1, 'the standby never leads while the leader renews');
  const leader = electors.find((e) => e.identity === started[0])!;
  const standby = electors.find((e) => e !== leader)!;
  assert.equal(leader.isLeader(), true);
  assert.equal(standby.isLeader(), false);

  const lease = await transports[0].request<Lease>({ method: 'GET', verb: 'get', path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/pv-controller' });
  assert.equal(lease.spec?.holderIdentity, leader.identity);
  assert.match(lease.spec?.renewTime ?? '', /\.\d{6}Z$/);

  const leaderIndex = electors.indexOf(leader);
  const oldApi = new KubeApiClient(transports[leaderIndex], { writeGuard: () => (leader.isLeader() ? undefined : 'not the leader') });
  await leader.stop();
  assert.deepEqual(stoppedLeading, [leader.identity]);
  assert.equal(leader.signal.aborted, true);
  await assert.rejects(oldApi.createVolume(newVolume('from-old-leader')), WriteRefusedError);
  await waitFor(() => standby.isLeader(), 'the standby to take over the released lease', { timeoutMs: 5000 });
  assert.deepEqual(started, [leader.identity, standby.identity]);
});

test('a leader that cannot renew stops leading by the renew deadline and its writes are refused', async (t) => {
  const srv = await startTestApiServer();
  const transport = new RestTransport(srv.kc, { qps: 0, burst: 0 });
  let lost = false;
  const elector = new LeaderElector(
    transport,
    { namespace: 'kube-system', name: 'pv-controller-cut', identity: 'solo', ...TIMING },
    { onStoppedLeading: () => (lost = true) },
    silentLog,
  );
  t.after(async () => {
    await elector.stop();
    transport.close();
  });
  elector.start();
  await waitFor(() => elector.isLeader(), 'leadership');
  const api = new KubeApiClient(transport, { writeGuard: () => (elector.isLeader() ? undefined : 'not the leader') });
  await api.createVolume(newVolume('while-leading'));
  await srv.stop();
  await waitFor(() => lost, 'the renew deadline to pass', { timeoutMs: 5000 });
  assert.equal(elector.isLeader(), false);
  await assert.rejects(api.createVolume(newVolume('after-loss')), WriteRefusedError);
});

test('a standby takes over a lease whose holder went silent, after the lease duration', async (t) => {
  const srv = await startTestApiServer();
  const transport = new RestTransport(srv.kc, { qps: 0, burst: 0 });
  const now = microTime();
  await transport.request({
    method: 'POST',
    verb: 'create',
    path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases',
    body: {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'pv-controller-silent', namespace: 'kube-system' },
      spec: { holderIdentity: 'crashed', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: 4 },
    },
  });
  const elector = new LeaderElector(transport, { namespace: 'kube-system', name: 'pv-controller-silent', identity: 'standby', ...TIMING }, {}, silentLog);
  t.after(async () => {
    await elector.stop();
    transport.close();
    await srv.stop();
  });
  elector.start();
  await waitFor(() => elector.isLeader(), 'takeover of the silent lease', { timeoutMs: 5000 });
  const lease = await transport.request<Lease>({ method: 'GET', verb: 'get', path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/pv-controller-silent' });
  assert.equal(lease.spec?.holderIdentity, 'standby');
  assert.equal(lease.spec?.leaseTransitions, 5);
});
