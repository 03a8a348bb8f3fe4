/**
 * `npm start` then the client commands with no flags, as a new user types them: they find the
 * data dir `up` writes in the current directory, say so, and a restarted `up` keeps its port.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { METRICS_ADDRESS_FILE } from '../../../src/cli/up-data-dir.js';

const CLI = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));

interface Up {
  child: ChildProcess;
  url: string;
}

/** `up` as `npm start` runs it, in `cwd`, until its banner names the API server. */
function startUp(cwd: string, metricsBindAddress = '0'): Promise<Up> {
  const args = [CLI, 'up', '--data-dir', '.pv-controller', '--storage', 'memory', '--metrics-bind-address', metricsBindAddress];
  const child = spawn(process.execPath, args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /API server (https:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`up exited ${code}: ${out}`)));
  });
}

async function stopUp(up: Up): Promise<void> {
  if (up.child.exitCode !== null) return;
  const exited = new Promise((done) => up.child.once('exit', done));
  process.kill(-(up.child.pid ?? 0), 'SIGTERM');
  await exited;
}

function runCli(cwd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBECONFIG: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('after `npm start`, usage and orphans need no flags, and a restarted up serves on the same port', async () => {
  const cwd = await mkdtemp(join(tmpdir(), 'pv-npm-start-'));
  let up = await startUp(cwd);
  try {
    const usage = await runCli(cwd, ['usage', '--metrics-url', 'http://127.0.0.1:9/metrics']);
    assert.match(usage.stderr, /using \.pv-controller\/kubeconfig \(the data dir of `npm start` here/);
    assert.match(usage.stdout, /^NAMESPACE\s+NAME/, 'the claims were listed through up\'s kubeconfig');
    assert.doesNotMatch(usage.stderr, /HTTP protocol is not allowed/);

    const orphans = await runCli(cwd, ['orphans']);
    assert.equal(orphans.code, 0, orphans.stderr);
    assert.match(orphans.stderr, /using \.pv-controller\/kubeconfig/);
    assert.match(orphans.stderr, /No orphaned volumes found \(.*host-path/, 'up\'s volumes root was scanned');

    const first = up.url;
    await stopUp(up);
    up = await startUp(cwd);
    assert.equal(up.url, first, 'the kubeconfig every terminal uses stays valid');
  } finally {
    await stopUp(up);
    await rm(cwd, { recursive: true, force: true });
  }
});

/** An HTTP server on a free loopback port serving fake volume metrics, counting the scrapes it gets. */
async function startDecoy(): Promise<{ server: Server; port: number; scrapes: () => number }> {
  let scrapes = 0;
  const server = createServer((_req, res) => {
    scrapes += 1;
    res.end('kubelet_volume_stats_used_bytes{namespace="default",persistentvolumeclaim="decoy"} 1\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, scrapes: () => scrapes };
}

test('usage beside npm start reads the metrics address up bound (127.0.0.1:0 included), and removes it when it stops', async () => {
  const cwd = await mkdtemp(join(tmpdir(), 'pv-npm-start-'));
  const up = await startUp(cwd, '127.0.0.1:0');
  try {
    const record = JSON.parse(await readFile(join(cwd, '.pv-controller', METRICS_ADDRESS_FILE), 'utf8')) as { url: string; pid: number };
    assert.match(record.url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    assert.equal(record.pid, up.child.pid);
    assert.ok((await fetch(record.url)).ok, 'the recorded address is up\'s /metrics');
    const usage = await runCli(cwd, ['usage']);
    assert.equal(usage.code, 0, usage.stderr);
    assert.doesNotMatch(usage.stderr, /cannot read/);
    await stopUp(up);
    await assert.rejects(readFile(join(cwd, '.pv-controller', METRICS_ADDRESS_FILE)), { code: 'ENOENT' }, 'a stopped up leaves no address behind');
  } finally {
    await stopUp(up);
    await rm(cwd, { recursive: true, force: true });
  }
});

test('when up\'s metrics port is taken by another server, usage says up serves no /metrics and never scrapes the other', async () => {
  const cwd = await mkdtemp(join(tmpdir(), 'pv-npm-start-'));
  const decoy = await startDecoy();
  const up = await startUp(cwd, `127.0.0.1:${decoy.port}`);
  try {
    const usage = await runCli(cwd, ['usage']);
    assert.equal(usage.code, 1);
    assert.match(usage.stderr, /no \/metrics is served by `up` in .*port was taken/);
    assert.doesNotMatch(usage.stdout, /decoy/);
    assert.equal(decoy.scrapes(), 0, 'the decoy was never scraped');
  } finally {
    await stopUp(up);
    await new Promise((resolve) => decoy.server.close(resolve));
    await rm(cwd, { recursive: true, force: true });
  }
});
