/** One embedded (or real, see startTestApiServer) server and a manifest directory for a file of kubectl tests. */
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKubectl, startTestApiServer, type KubectlResult, type TestApiServer } from './apiserver.js';

export interface KubectlSession {
  /** Runs kubectl against the session's server. */
  run(args: string[], env?: Record<string, string>): Promise<KubectlResult>;
  /** Runs kubectl and fails the test unless it exits 0; returns stdout. */
  succeeds(...args: string[]): Promise<string>;
  /** Writes a file into the session's directory and returns its path. */
  manifest(name: string, text: string): Promise<string>;
}

/**
 * Registers before/after hooks that start and stop the server; does nothing when `skip` is set.
 * `prepare` runs once the server is up (installing CRDs on a real one, say).
 */
export function kubectlSession(skip: string | false, prepare?: (t: TestApiServer) => Promise<void>): KubectlSession {
  let t: TestApiServer;
  let dir: string;
  before(async () => {
    if (skip) return;
    t = await startTestApiServer();
    await prepare?.(t);
    dir = await mkdtemp(join(tmpdir(), 'kubectl-session-'));
  });
  after(async () => {
    if (skip) return;
    await t.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const run = (args: string[], env: Record<string, string> = {}): Promise<KubectlResult> => runKubectl(args, t.server.kubeconfigPath, { env });
  return {
    run,
    async succeeds(...args) {
      const r = await run(args);
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}\n${r.stdout}`);
      return r.stdout;
    },
    async manifest(name, text) {
      const path = join(dir, name);
      await writeFile(path, text);
      return path;
    },
  };
}
