/**
 * The real control plane as a test server: under `npm run test:cluster` every test that asks
 * for an API server gets a fresh kube-apiserver of its own on an empty etcd prefix (the etcd is
 * shared by the run, PV_TEST_ETCD_URL), with deploy/rbac.yaml applied and a ServiceAccount
 * token for the controller.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { controlPlaneUnavailable } from '../../tools/cluster/binaries.js';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from '../../tools/cluster/control-plane.js';
import type { TestApiServer } from './apiserver.js';

export function onRealControlPlane(): boolean {
  return process.env.PV_TEST_CONTROL_PLANE === 'real';
}

/** Skip reason for tests that need the real control plane, or false when it can run. */
export function realControlPlaneSkip(): string | false {
  return controlPlaneUnavailable() ?? false;
}

/** Where test runs keep their audit logs (the run checks them for denied requests). */
export function auditDir(): string | undefined {
  return process.env.PV_TEST_AUDIT_DIR;
}

/** A fresh control plane in a temp dir; the audit log is kept in PV_TEST_AUDIT_DIR when set. */
export async function startTestControlPlane(opts: Partial<ControlPlaneOptions> = {}): Promise<ControlPlane & { removeDir(): Promise<void> }> {
  const parent = auditDir() ?? tmpdir();
  const dir = await mkdtemp(join(parent, 'cp-'));
  const plane = await startControlPlane({ dir, etcdUrl: process.env.PV_TEST_ETCD_URL, controllerServiceAccount: true, ...opts });
  return {
    ...plane,
    async removeDir() {
      // The audit log stays for the run's check; everything else goes.
      if (auditDir()) {
        for (const f of ['pki', 'sa.key', 'tokens.csv', 'etcd-data']) await rm(join(dir, f), { recursive: true, force: true });
      } else {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

export async function startRealTestApiServer(): Promise<TestApiServer> {
  const plane = await startTestControlPlane();
  let stopped: Promise<void> | undefined;
  return {
    server: { url: plane.url, token: plane.adminToken, caPem: plane.caPem, kubeconfigPath: plane.kubeconfigPath },
    kc: plane.admin(),
    controllerKubeconfigPath: plane.controllerKubeconfigPath ?? plane.kubeconfigPath,
    dataDir: plane.dir,
    stop: () => {
      stopped ??= plane.stop().finally(() => plane.removeDir());
      return stopped;
    },
  };
}
