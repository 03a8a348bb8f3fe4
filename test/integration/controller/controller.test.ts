import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../helpers/apiserver.js';
import { binderModule } from '../../../src/controller/binder/index.js';
import { startController } from '../../../src/controller/controller.js';
import type { ControllerModule } from '../../../src/controller/runtime/module.js';
import { RestTransport } from '../../../src/kube-client/transport.js';
import { WriteRefusedError } from '../../../src/kube-client/kube-api-client.js';
import { DONE } from '../../../src/controller/runtime/sync-result.js';
import { parseControllerOptions } from '../../../src/controller/options.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { newClaim, newVolume, silentLog, waitFor } from '../../helpers/objects.js';

const FAST_ELECTION = {
  leaderElectLeaseDuration: '1500ms',
  leaderElectRenewDeadline: '1s',
  leaderElectRetryPeriod: '200ms',
  kubeApiQps: '0',
  metricsBindAddress: '0',
};

test('the running controller binds a claim to a matching volume and its modules see every key', async (t) => {
  const srv = await startTestApiServer();
  const client = new RestTransport(srv.kc, { qps: 0, burst: 0 });
  const seenClaims = new Set<string>();
  const seenVolumes = new Set<string>();
  const probe: ControllerModule = {
    name: 'probe',
    create: () => ({
      syncClaim: async (c) => (seenClaims.add(c.metadata.name ?? ''), DONE),
      syncVolume: async (v) => (seenVolumes.add(v.metadata.name ?? ''), DONE),
    }),
  };
  const ctrl = await startController(parseControllerOptions({ ...FAST_ELECTION, leaderElect: 'false' }), {
    kubeConfig: srv.kc,
    logger: silentLog,
    modules: [binderModule(), probe],
  });
  t.after(async () => {
    await ctrl.stop();
    client.close();
    await srv.stop();
  });
  await waitFor(() => ctrl.ready(), 'caches synced and workers running');
  await client.request({ method: 'POST', verb: 'create', path: '/api/v1/persistentvolumes', body: newVolume('pv-1', '2Gi') });
  // A claim created before its volume is Available waits for the next resync, as upstream.
  await waitFor(async () => {
    const v = await client.request<PersistentVolume>({ method: 'GET', verb: 'get', path: '/api/v1/persistentvolumes/pv-1' });
    return v.status?.phase === 'Available';
  }, 'the volume to be Available');
  await client.request({ method: 'POST', verb: 'create', path: '/api/v1/namespaces/default/persistentvolumeclaims', body: newClaim('default', 'c-1', '1Gi') });
  await waitFor(async () => {
    const c = await client.request<PersistentVolumeClaim>({ method: 'GET', verb: 'get', path: '/api/v1/namespaces/default/persistentvolumeclaims/c-1' });
    return c.status?.phase === 'Bound';
  }, 'the claim to be Bound');
  await waitFor(async () => {
    const v = await client.request<PersistentVolume>({ method: 'GET', verb: 'get', path: '/api/v1/persistentvolumes/pv-1' });
    return v.status?.phase === 'Bound' && v.spec.claimRef?.name === 'c-1';
  }, 'the volume to be Bound to the claim');
  assert.ok(seenClaims.has('c-1'));
  assert.ok(seenVolumes.has('pv-1'));
  const stats = ctrl.stats();
  assert.ok((stats.requests.update?.requests ?? 0) >= 4, 'PV, PV status, PVC, PVC status');
  assert.equal(stats.objects.claims, 1);
  assert.equal(stats.synced, true);
});

test('with leader election, only the leading controller syncs; a stopped leader hands over and refuses writes', async (t) => {
  const srv = await startTestApiServer();
  const client = new RestTransport(srv.kc, { qps: 0, burst: 0 });
  const opts = parseControllerOptions({ ...FAST_ELECTION, leaderElectResourceName: 'pv-controller-it' });
  const a = await startController(opts, { kubeConfig: srv.kc, logger: silentLog, modules: [binderModule()] });
  await waitFor(() => a.ready(), 'the first controller to lead');
  const b = await startController(opts, { kubeConfig: srv.kc, logger: silentLog, modules: [binderModule()] });
  t.after(async () => {
    await Promise.all([a.stop(), b.stop()]);
    client.close();
    await srv.stop();
  });
  await waitFor(() => b.stats().synced, 'the standby caches to sync');
  assert.equal(b.ready(), false, 'the standby does not run workers');
  await assert.rejects(b.api.updateVolume(newVolume('x')), WriteRefusedError);

  await a.stop();
  await waitFor(() => b.ready(), 'the standby to take over', { timeoutMs: 5000 });
  await assert.rejects(a.api.createVolume(newVolume('from-stopped')), WriteRefusedError);
  await client.request({ method: 'POST', verb: 'create', path: '/api/v1/persistentvolumes', body: newVolume('pv-2') });
  await waitFor(async () => {
    const v = await client.request<PersistentVolume>({ method: 'GET', verb: 'get', path: '/api/v1/persistentvolumes/pv-2' });
    return v.status?.phase === 'Available';
  }, 'the new leader to sync a new volume');
});
