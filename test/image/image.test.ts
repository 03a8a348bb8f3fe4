/**
 * The image `npm run image:build` made, run with podman: `--help` answers, the final stage holds
 * Node.js but no build tools and runs as a non-root user, holds no embedded API server (`up`
 * says so), and `pv-controller controller` binds a claim on a server outside the container and
 * serves /readyz until `podman stop`. Skips with a message where podman
 * is missing, this is not root, or the image has not been built (the build takes minutes and
 * belongs to set-up, not to a timed test).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdtemp, rm } from 'node:fs/promises';
import { CoreV1Api } from '@kubernetes/client-node';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { startEmbeddedTestApiServer } from '../helpers/apiserver.js';
import { freePort, startProcess, waitUntil } from '../../tools/cluster/processes.js';
import { imageRef } from '../../tools/image/build.js';
import { imageNodeVersion } from '../../tools/image/node-image.js';
import { containerToolsMissing, imageExists, podmanArgs, probeContainerSettings, runCommand, type ContainerSettings } from '../../tools/image/podman.js';

/** `PV_IMAGE` tests another tag than the package version's (a release candidate, a second build beside others'). */
const IMAGE = process.env.PV_IMAGE ?? imageRef();
const toolsMissing = containerToolsMissing(['podman']);
const notBuilt = toolsMissing ? false : !(await imageExists(IMAGE)) && `${IMAGE} is not built: run \`npm run image:build\``;
const skip = toolsMissing ?? notBuilt;
let settings: ContainerSettings;

before(async () => {
  if (!skip) settings = await probeContainerSettings(IMAGE);
});

function podman(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCommand('podman', podmanArgs(settings, args));
}

test('pv-controller --help in the image prints the commands and exits 0', { skip, timeout: 60_000 }, async () => {
  const res = await podman(['run', '--rm', '--network', 'none', IMAGE, '--help']);
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stdout, /^Usage: pv-controller/m);
  for (const command of ['up', 'controller', 'apiserver', 'usage', 'orphans']) assert.match(res.stdout, new RegExp(`^  ${command} `, 'm'));
});

test('the final stage has the Containerfile\'s Node.js, no compiler, make, python or npm, and a non-root user', { skip, timeout: 60_000 }, async () => {
  const probe = 'node --version; id -u; for t in gcc g++ cc make python3 npm npx apt-get; do command -v $t || true; done';
  const res = await podman(['run', '--rm', '--network', 'none', '--entrypoint', 'sh', IMAGE, '-c', probe]);
  assert.equal(res.code, 0, res.stderr);
  const [version, uid, ...found] = res.stdout.trim().split('\n');
  assert.equal(version, `v${imageNodeVersion()}`);
  assert.equal(uid, '65532');
  // apt-get belongs to the Debian base, not to the build: it is the only one allowed.
  assert.deepEqual(found, ['/usr/bin/apt-get']);
});

test('the image carries the OCI labels: title, description, version, revision, created, source and licenses', { skip, timeout: 60_000 }, async () => {
  const res = await runCommand('podman', ['image', 'inspect', '--format', '{{json .Labels}}', IMAGE]);
  assert.equal(res.code, 0, res.stderr);
  const labels = JSON.parse(res.stdout) as Record<string, string>;
  const oci = (key: string) => labels[`org.opencontainers.image.${key}`];
  assert.deepEqual([oci('title'), oci('licenses')], ['pv-controller', 'Apache-2.0']);
  assert.match(oci('version'), /^\d+\.\d+\.\d+/);
  assert.match(oci('revision'), /^[0-9a-f]{40}$/);
  assert.match(oci('created'), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  assert.ok(oci('description') && oci('source'), JSON.stringify(labels));
});

test('the image holds no embedded API server: `up` says so and exits 1, and none of its dependencies is inside', { skip, timeout: 60_000 }, async () => {
  const up = await podman(['run', '--rm', '--network', 'none', IMAGE, 'up', '--data-dir', '/var/lib/pv-controller/data']);
  assert.equal(up.code, 1, up.stderr);
  assert.match(up.stderr, /the embedded API server \(@pv-controller\/apiserver\) is not installed here/);
  // protobufjs is the CSI client's as well (src/csi): it is in the image for that, not for the server.
  const probe = 'cd /app/node_modules && for p in better-sqlite3 selfsigned fast-json-patch @pv-controller/apiserver @grpc/grpc-js @pv-controller/kube; do [ -e "$p" ] && echo "$p"; done; true';
  const res = await podman(['run', '--rm', '--network', 'none', '--entrypoint', 'sh', IMAGE, '-c', probe]);
  assert.equal(res.code, 0, res.stderr);
  assert.deepEqual(res.stdout.trim().split('\n'), ['@grpc/grpc-js', '@pv-controller/kube'], 'the controller\'s own dependencies (the CSI client among them) are there, none of the server\'s');
});

test('pv-controller controller in the image binds a claim on an API server outside it, serves /readyz, and stops on podman stop', { skip, timeout: 120_000 }, async () => {
  const api = await startEmbeddedTestApiServer();
  const metricsPort = await freePort();
  const name = `pv-controller-test-${randomBytes(4).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'pv-image-'));
  const logPath = join(dir, 'podman.log');
  // The container's user is not root: it reads a copy of the admin kubeconfig.
  await copyFile(api.server.kubeconfigPath, join(dir, 'kubeconfig'));
  await chmod(join(dir, 'kubeconfig'), 0o644);
  await chmod(dir, 0o755);
  const args = podmanArgs(settings, ['run', '--rm', '--name', name, '--network', 'host', '-v', `${dir}:/config:ro`, IMAGE, 'controller']);
  args.push('--kubeconfig', '/config/kubeconfig', '--metrics-bind-address', `127.0.0.1:${metricsPort}`);
  const container = startProcess('podman run', 'podman', args, logPath, dir);
  try {
    await waitUntil('the container answers /readyz', async () => (await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).ok, container, () => '', 90_000);
    const core = api.kc.makeApiClient(CoreV1Api);
    await core.createPersistentVolume({ body: { metadata: { name: `${name}-pv` }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv-image-test' }, storageClassName: '' } } });
    await core.createNamespacedPersistentVolumeClaim({ namespace: 'default', body: { metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: '' } } });
    await waitUntil('the claim is Bound', async () => (await core.readNamespacedPersistentVolumeClaim({ namespace: 'default', name })).status?.phase === 'Bound', container, () => '', 60_000);
    const stopped = await runCommand('podman', podmanArgs(settings, ['stop', '--time', '20', name]));
    assert.equal(stopped.code, 0, stopped.stderr);
    await container.exited;
  } finally {
    await runCommand('podman', podmanArgs(settings, ['rm', '--force', '--ignore', name]));
    await container.stop();
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
