/**
 * Upstream's fault-injection rows (pkg/controller/volume/persistentvolume provision_test.go and
 * delete_test.go), made testable through the API: the controller talks to the embedded server
 * only through the chaos suite's fault-injecting proxy, which fails exactly the requests a row
 * names. A provisioned backing volume is never leaked, whatever fails and in which order.
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { afterEach, test } from 'node:test';
import { defaultModules } from '../../src/controller/modules.js';
import { FINALIZER_PROVISIONING } from '@pv-controller/kube/annotations.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { HOST_PATH_PROVISIONER, HostPathPlugin } from '../../src/plugins/host-path/index.js';
import type { DeleteRequest, ProvisionedVolume, ProvisionRequest } from '../../src/plugins/api/core.js';
import { PluginError } from '../../src/plugins/api/errors.js';
import { FaultProxy } from '../../tools/chaos/proxy.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { claimLeft, TestApi, waitFor } from './provisioning-helpers.js';

/** host-path, except that deletes fail while `failDeletes` is set and provisions can be gated. */
class FaultyHostPathPlugin extends HostPathPlugin {
  failDeletes = false;
  deleteCalls = 0;
  provisionCalls = 0;
  /** Provision calls after the first wait for this gate (before they touch the disk). */
  private gate: Promise<void> | undefined;
  private openGate: () => void = () => undefined;

  gateLaterProvisions(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }

  releaseProvisions(): void {
    this.openGate();
  }

  override async provision(req: ProvisionRequest): Promise<ProvisionedVolume> {
    if (++this.provisionCalls > 1 && this.gate) await this.gate;
    return super.provision(req);
  }

  override async delete(req: DeleteRequest): Promise<void> {
    this.deleteCalls++;
    if (this.failDeletes) throw new PluginError('Backend', 'injected delete failure', true);
    return super.delete(req);
  }
}

interface Setup {
  cluster: TestCluster;
  proxy: FaultProxy;
  api: TestApi;
  plugin: FaultyHostPathPlugin;
}

const running: Setup[] = [];

afterEach(async () => {
  for (const s of running.splice(0)) {
    s.api.close();
    await s.cluster.stopController();
    await s.proxy.stop();
    await s.cluster.stop();
  }
});

const PV_CREATE = { method: 'POST', path: '/api/v1/persistentvolumes' };

async function setup(): Promise<Setup> {
  const cluster = await startTestCluster({
    noHostPath: true,
    noController: true,
    modules: defaultModules({ provisioner: { createRetryDelayMs: 10 }, reclaimer: { retryIntervalMs: 200 } }),
  });
  const plugin = new FaultyHostPathPlugin({ roots: [cluster.hostPathRoot] });
  cluster.plugins.register(plugin);
  const proxy = await FaultProxy.start({ dir: `${cluster.dataDir}/proxy`, upstream: cluster.kc });
  const api = new TestApi(cluster.kc);
  const s = { cluster, proxy, api, plugin };
  running.push(s);
  await cluster.startController({ kubeconfig: proxy.kubeconfigPath });
  await api.createClass({ metadata: { name: 'fast' }, provisioner: HOST_PATH_PROVISIONER, reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
  return s;
}

function newClaim(name: string): PersistentVolumeClaim {
  return {
    metadata: { name, namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'fast' },
  };
}

async function volumeDirs(s: Setup): Promise<string[]> {
  return (await readdir(s.cluster.hostPathRoot)).filter((name) => !name.startsWith('.')).sort();
}

async function waitBound(s: Setup, name: string): Promise<PersistentVolumeClaim> {
  return waitFor(async () => {
    const claim = await s.api.claim('default', name);
    return claim?.status?.phase === 'Bound' ? claim : undefined;
  }, `claim ${name} to be Bound`, { timeoutMs: 30_000 });
}

function waitForEvent(s: Setup, name: string, reason: string): Promise<true> {
  return waitFor(async () => (await s.api.eventReasons('default', name)).includes(reason), `a ${reason} event on ${name}`, { timeoutMs: 30_000 });
}

/** One PV, bound to `claim`, and one directory: the one that PV names. */
async function assertOneVolumeBound(s: Setup, claim: PersistentVolumeClaim): Promise<void> {
  const pvs = await s.api.volumes();
  assert.deepEqual(pvs.map((pv) => pv.metadata.name), [`pvc-${claim.metadata.uid}`]);
  assert.equal(pvs[0].spec.claimRef?.uid, claim.metadata.uid);
  assert.deepEqual(await volumeDirs(s), [`kubernetes-dynamic-pvc-${claim.metadata.uid}`]);
}

test('PV create after a successful provision fails once, then works: one volume, bound', async () => {
  const s = await setup();
  s.proxy.inject(PV_CREATE, 'serverError', 1);
  await s.api.createClaim(newClaim('once'));
  const bound = await waitBound(s, 'once');
  assert.equal(s.proxy.count('serverError'), 1);
  await assertOneVolumeBound(s, bound);
  assert.equal(s.plugin.provisionCalls, 1, 'the volume was made once');
});

test('PV create fails five times: the backing volume is deleted, the claim stays Pending with ProvisioningFailed, nothing leaked', async () => {
  const s = await setup();
  s.plugin.gateLaterProvisions();
  s.proxy.inject(PV_CREATE, 'serverError', 5);
  const claim = await s.api.createClaim(newClaim('five'));
  await waitForEvent(s, 'five', 'ProvisioningFailed');
  await waitForEvent(s, 'five', 'ProvisioningCleanedUp');
  await waitFor(async () => !(await s.api.claim('default', 'five'))?.metadata.finalizers?.includes(FINALIZER_PROVISIONING), 'the intent to be released');
  assert.equal(s.proxy.count('serverError'), 5);
  assert.equal((await s.api.claim('default', 'five'))?.status?.phase, 'Pending');
  assert.deepEqual(await volumeDirs(s), [], 'the backing directory was deleted');
  assert.deepEqual(await s.api.volumes(), []);
  // The next try (after its backoff) provisions again and binds: still exactly one volume.
  s.plugin.releaseProvisions();
  await assertOneVolumeBound(s, await waitBound(s, 'five'));
  assert.equal(claim.metadata.uid, (await s.api.claim('default', 'five'))?.metadata.uid);
});

test('PV create fails five times while the plugin cannot delete either: ProvisioningCleanupFailed, retried later, nothing leaked in the end', async () => {
  const s = await setup();
  s.plugin.failDeletes = true;
  s.plugin.gateLaterProvisions();
  s.proxy.inject(PV_CREATE, 'serverError', 5);
  await s.api.createClaim(newClaim('stuck'));
  await waitForEvent(s, 'stuck', 'ProvisioningCleanupFailed');
  const held = await s.api.claim('default', 'stuck');
  assert.ok(held?.metadata.finalizers?.includes(FINALIZER_PROVISIONING), 'the intent stays while the volume exists');
  assert.equal((await volumeDirs(s)).length, 1, 'the undeletable directory is still there, still owned by the claim');
  // The next operation (after its backoff) finds the claim's own volume again and publishes it.
  await waitFor(() => s.plugin.provisionCalls >= 2, 'the operation to be retried', { timeoutMs: 30_000 });
  s.plugin.failDeletes = false;
  s.plugin.releaseProvisions();
  await assertOneVolumeBound(s, await waitBound(s, 'stuck'));
  await s.api.deleteClaim('default', 'stuck');
  await claimLeft(s.api, 'default', 'stuck');
  await waitFor(async () => (await s.api.volumes()).length === 0 && (await volumeDirs(s)).length === 0, 'the volume and its directory to be gone');
});

test('PV create error after the PV was saved, then AlreadyExists: the claim binds that PV, one volume', async () => {
  const s = await setup();
  s.proxy.inject(PV_CREATE, 'lostAnswer', 1);
  await s.api.createClaim(newClaim('lost'));
  const bound = await waitBound(s, 'lost');
  assert.equal(s.proxy.count('lostAnswer'), 1);
  await assertOneVolumeBound(s, bound);
  assert.equal(s.plugin.provisionCalls, 1);
});

test('PV delete fails once, then succeeds: the volume, its directory and the claim are gone', async () => {
  const s = await setup();
  const bound = await waitBound(s, (await s.api.createClaim(newClaim('gone'))).metadata.name ?? '');
  s.proxy.inject({ method: 'DELETE', path: `/api/v1/persistentvolumes/${bound.spec.volumeName}` }, 'serverError', 1);
  await s.api.deleteClaim('default', 'gone');
  await claimLeft(s.api, 'default', 'gone');
  await waitFor(async () => (await s.api.volumes()).length === 0, 'the PV to be deleted');
  assert.equal(s.proxy.count('serverError'), 1);
  assert.deepEqual(await volumeDirs(s), []);
});

test('the plugin delete fails once, then succeeds: VolumeFailedDelete, then the volume and its directory are gone', async () => {
  const s = await setup();
  const bound = await waitBound(s, (await s.api.createClaim(newClaim('retry'))).metadata.name ?? '');
  s.plugin.failDeletes = true;
  await s.api.deleteClaim('default', 'retry');
  await waitFor(async () => (await s.api.eventReasons('', bound.spec.volumeName ?? '')).includes('VolumeFailedDelete'), 'a VolumeFailedDelete event');
  s.plugin.failDeletes = false;
  await waitFor(async () => (await s.api.volumes()).length === 0, 'the PV to be deleted');
  assert.deepEqual(await volumeDirs(s), []);
});
