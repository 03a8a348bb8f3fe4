import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));

interface Child {
  proc: ChildProcess;
  server: string;
  ca: string;
  token: string;
}

/** Starts `pv-controller apiserver` in its own process group and waits for its kubeconfig line. */
async function startChild(dataDir: string, storage: 'sqlite' | 'memory', extra: string[] = []): Promise<Child & { stderr(): string }> {
  const args = [MAIN, 'apiserver', '--data-dir', dataDir, '--listen', '127.0.0.1:0', '--storage', storage, ...extra];
  const proc = spawn(process.execPath, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`apiserver did not start:\n${err}`)), 30_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/kubeconfig: .+\n/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`apiserver exited with ${code}:\n${err}`));
    });
  });
  const kc = parse(await readFile(join(dataDir, 'kubeconfig'), 'utf8'));
  return {
    proc,
    stderr: () => err,
    server: kc.clusters[0].cluster.server,
    ca: Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString(),
    token: kc.users[0].user.token,
  };
}

function killGroup(proc: ChildProcess, signal: NodeJS.Signals): void {
  if (proc.pid !== undefined && proc.exitCode === null && proc.signalCode === null) {
    try {
      process.kill(-proc.pid, signal);
    } catch {
      // already gone
    }
  }
}

function exited(proc: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve({ code: proc.exitCode, signal: proc.signalCode });
  return new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
}

function call(c: Child, method: string, path: string, body?: unknown): Promise<{ status: number; json: { metadata?: { name?: string; resourceVersion?: string }; items?: Array<{ metadata: { name: string } }> } }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { Authorization: `Bearer ${c.token}`, Accept: 'application/json' };
  if (payload !== undefined) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) });
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, c.server), { method, headers, ca: c.ca, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : {} }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

test('pv-controller apiserver stops cleanly with exit 0 on SIGTERM and logs text when asked', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'pvc-cli-'));
  const child = await startChild(dataDir, 'memory', ['--log-format', 'text']);
  try {
    assert.equal((await call(child, 'GET', '/api/v1/namespaces/default')).status, 200);
    child.proc.kill('SIGTERM');
    assert.deepEqual(await exited(child.proc), { code: 0, signal: null });
    assert.match(child.stderr(), /^\S+Z INFO {2}API server listening url=https:\/\/127\.0\.0\.1:\d+ /m);
    assert.match(child.stderr(), /INFO {2}API server stopped/);
    assert.doesNotMatch(child.stderr(), new RegExp(child.token), 'the token is never logged');
  } finally {
    killGroup(child.proc, 'SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('every write acknowledged before kill -9 is there after a restart on SQLite, and resourceVersions continue', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'pvc-crash-'));
  let child = await startChild(dataDir, 'sqlite');
  const acked = new Map<string, number>();
  try {
    let stop = false;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (!stop) {
        const name = `ns-${next++}`;
        try {
          const r = await call(child, 'POST', '/api/v1/namespaces', { metadata: { name } });
          if (r.status === 201) acked.set(name, Number(r.json.metadata?.resourceVersion));
        } catch {
          return; // the server is gone
        }
      }
    };
    const workers = Array.from({ length: 8 }, () => worker());
    const deadline = Date.now() + 60_000;
    while (acked.size < 300) {
      assert.ok(Date.now() < deadline, `only ${acked.size} writes acknowledged in 60 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
    killGroup(child.proc, 'SIGKILL');
    await exited(child.proc);
    stop = true;
    await Promise.all(workers);
    child = await startChild(dataDir, 'sqlite');
    const list = await call(child, 'GET', '/api/v1/namespaces');
    const present = new Set(list.json.items!.map((n) => n.metadata.name));
    const missing = [...acked.keys()].filter((n) => !present.has(n));
    assert.deepEqual(missing, [], 'acknowledged writes lost');
    const after = await call(child, 'POST', '/api/v1/namespaces', { metadata: { name: 'after-restart' } });
    assert.equal(after.status, 201);
    assert.ok(Number(after.json.metadata?.resourceVersion) > Math.max(...acked.values()));
  } finally {
    killGroup(child.proc, 'SIGKILL');
    await exited(child.proc);
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('a bad apiserver flag exits 2 with a message', async () => {
  const proc = spawn(process.execPath, [MAIN, 'apiserver', '--data-dir', tmpdir(), '--listen', 'nonsense'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  assert.deepEqual(await exited(proc), { code: 2, signal: null });
  assert.match(err, /expected host:port/);
});
