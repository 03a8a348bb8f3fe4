/**
 * The image `npm run image:build` made, run with podman: `--help` answers, the final stage holds
 * Node.js but no build tools and runs as a non-root user, and `pv-controller up` serves its API
 * and /readyz from inside the container until `podman stop`. Skips with a message where podman
 * is missing, this is not root, or the image has not been built (the build takes minutes and
 * belongs to set-up, not to a timed test).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { freePort, startProcess, waitUntil } from '../../tools/cluster/processes.js';
import { imageRef } from '../../tools/image/build.js';
import { imageNodeVersion } from '../../tools/image/node-image.js';
import { containerToolsMissing, imageExists, podmanArgs, probeContainerSettings, runCommand, type ContainerSettings } from '../../tools/image/podman.js';

const IMAGE = imageRef();
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

test('pv-controller up in the image serves the API and /readyz, prints its banner, and stops on podman stop', { skip, timeout: 120_000 }, async () => {
  const [apiPort, metricsPort] = [await freePort(), await freePort()];
  const name = `pv-controller-test-${randomBytes(4).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'pv-image-'));
  const logPath = join(dir, 'podman.log');
  const args = podmanArgs(settings, ['run', '--rm', '--name', name, '--network', 'host', IMAGE, 'up', '--data-dir', '/var/lib/pv-controller/data']);
  args.push('--listen', `127.0.0.1:${apiPort}`, '--metrics-bind-address', `127.0.0.1:${metricsPort}`);
  const container = startProcess('podman run', 'podman', args, logPath, dir);
  const log = async (): Promise<string> => readFile(logPath, 'utf8').catch(() => '');
  try {
    await waitUntil('the container answers /readyz', async () => (await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).ok, container, () => '', 90_000);
    assert.match(await log(), /pv-controller is up: API server https:\/\/127\.0\.0\.1:\d+/);
    assert.match(await log(), /StorageClass "standard" \(host-path, default\) is ready/);
    const stopped = await runCommand('podman', podmanArgs(settings, ['stop', '--time', '20', name]));
    assert.equal(stopped.code, 0, stopped.stderr);
    await container.exited;
  } finally {
    await runCommand('podman', podmanArgs(settings, ['rm', '--force', '--ignore', name]));
    await container.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
