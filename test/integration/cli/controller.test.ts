import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startTestApiServer } from '../../helpers/apiserver.js';
import { RestTransport } from '../../../src/kube-client/transport.js';
import type { Lease, PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { newClaim, newVolume, waitFor } from '../../helpers/objects.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));

test('`pv-controller controller` binds against a server, holds the lease, warns that it serves no plugin, and exits 0 on SIGTERM releasing it', async (t) => {
  const srv = await startTestApiServer();
  const client = new RestTransport(srv.kc, { qps: 0, burst: 0 });
  const child = spawn(
    process.execPath,
    [
      MAIN, 'controller',
      '--kubeconfig', srv.server.kubeconfigPath,
      '--leader-elect-lease-duration', '3s',
      '--leader-elect-renew-deadline', '2s',
      '--leader-elect-retry-period', '500ms',
      '--log-format', 'text',
      '--kube-api-qps', '1000',
      '--metrics-bind-address', '127.0.0.1:0',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.after(async () => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    await exited;
    client.close();
    await srv.stop();
  });
  const leasePath = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/pv-controller';
  await waitFor(async () => {
    try {
      return Boolean((await client.request<Lease>({ method: 'GET', verb: 'get', path: leasePath })).spec?.holderIdentity);
    } catch {
      return false;
    }
  }, `the controller to take the lease\n${stderr}`, { timeoutMs: 30_000 });
  await client.request({ method: 'POST', verb: 'create', path: '/api/v1/persistentvolumes', body: newVolume('cli-pv') });
  await waitFor(async () => {
    const v = await client.request<PersistentVolume>({ method: 'GET', verb: 'get', path: '/api/v1/persistentvolumes/cli-pv' });
    return v.status?.phase === 'Available';
  }, 'the volume to become Available', { timeoutMs: 30_000 });
  await client.request({ method: 'POST', verb: 'create', path: '/api/v1/namespaces/default/persistentvolumeclaims', body: newClaim('default', 'cli-claim') });
  await waitFor(async () => {
    const c = await client.request<PersistentVolumeClaim>({ method: 'GET', verb: 'get', path: '/api/v1/namespaces/default/persistentvolumeclaims/cli-claim' });
    return c.status?.phase === 'Bound';
  }, 'the claim to be Bound', { timeoutMs: 30_000 });
  process.kill(child.pid!, 'SIGTERM');
  assert.equal(await exited, 0, stderr);
  const lease = await client.request<Lease>({ method: 'GET', verb: 'get', path: leasePath });
  assert.equal(lease.spec?.holderIdentity ?? '', '', 'released on a clean shutdown');
  assert.match(stderr, /INFO +controller started/);
  assert.match(stderr, /WARN +no volume plugin is configured: .*configure one with --host-path-root, --nfs-mount or --cloud-provider \(with node agents serving host-path.pv-controller.io this is expected: their claims still bind here\)/);
});
