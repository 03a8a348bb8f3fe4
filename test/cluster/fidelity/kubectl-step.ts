/**
 * kubectl as a user types it, against one server: the built kubectl (the same client for both
 * servers), files written into the case's directory, $EDITOR as a script, and streaming commands
 * (`get -w`) stopped once they showed what the case waits for.
 */
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runKubectl, startKubectl } from '../../helpers/apiserver.js';
import type { HttpStep, KubectlStep } from './case.js';
import type { Target } from './http.js';

export interface KubectlAnswer {
  /** null when the case stopped a command that keeps running. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

const KUBECTL_TIMEOUT_MS = 30_000;

async function prepare(step: KubectlStep, dir: string): Promise<Record<string, string>> {
  for (const [name, text] of Object.entries(step.files ?? {})) await writeFile(join(dir, name), text);
  if (!step.editor) return {};
  const editor = join(dir, 'editor.sh');
  await writeFile(editor, `#!/bin/sh\nset -e\n${step.editor}\n`);
  await chmod(editor, 0o755);
  return { EDITOR: editor, KUBE_EDITOR: editor };
}

async function ignoreTimeout(p: Promise<unknown>): Promise<void> {
  await p.catch(() => undefined);
}

/** Matches once the line `pattern` ends in is complete (kubectl writes a row in more than one write). */
function wholeLine(pattern: string): RegExp {
  return new RegExp(`(?:${pattern})[^\\n]*\\n`);
}

export async function runKubectlStep(
  step: KubectlStep,
  target: Target,
  dir: string,
  deadlineMs: number,
  during: (s: HttpStep) => Promise<void>,
): Promise<KubectlAnswer> {
  const env = await prepare(step, dir);
  const run = { bin: target.kubectl, env };
  if (!step.stream) {
    const r = await runKubectl(step.args, target.kubeconfigPath, { stdin: step.stdin, timeoutMs: KUBECTL_TIMEOUT_MS, ...run });
    return { exitCode: r.code, stdout: r.stdout, stderr: r.stderr };
  }
  const proc = await startKubectl(step.args, target.kubeconfigPath, step.stdin, run);
  try {
    await ignoreTimeout(proc.waitForOutput(wholeLine(step.stream.ready), deadlineMs));
    for (const d of step.stream.during) await during(d);
    await ignoreTimeout(proc.waitForOutput(wholeLine(step.stream.until), deadlineMs));
  } finally {
    await proc.stop();
  }
  return { exitCode: null, stdout: proc.stdout(), stderr: proc.stderr() };
}
