/**
 * What the mount-namespace scenarios share: a root with decoys beside it on the sandbox tmpfs,
 * and one shape for what an attempted delete or recycle did.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { PersistentVolume } from '@pv-controller/kube/types.js';

export interface Attempt {
  outcome: 'ok' | 'failed';
  code?: string;
  retryable?: boolean;
  message?: string;
}

export interface ScenarioResult {
  mountPoint: string;
  delete?: Attempt;
  recycle?: Attempt;
  provision?: Attempt;
  /** Every decoy file the scenario planted is still there with its content. */
  decoysIntact: boolean;
  /** The volume's own files outside the mount are still there (nothing was deleted). */
  volumeIntact?: boolean;
  /** Scenarios that must succeed: the volume directory's entries afterwards. */
  volumeEntries?: string[];
  volumeGone?: boolean;
  events?: string[];
  phase?: string;
}

export async function attempt(operation: () => Promise<void>): Promise<Attempt> {
  try {
    await operation();
    return { outcome: 'ok' };
  } catch (err) {
    const e = err as { code?: string; retryable?: boolean; message?: string };
    return { outcome: 'failed', code: e.code, retryable: e.retryable, message: e.message };
  }
}

const DECOYS: Record<string, string> = { 'precious.txt': 'do not delete', 'tree/deep/keep.txt': 'do not delete either' };

/** `<base>/root` (the volume root) and `<base>/outside` holding the decoy files. */
export async function layout(base: string): Promise<{ root: string; outside: string; decoysIntact: () => Promise<boolean> }> {
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  await fs.mkdir(root, { recursive: true });
  for (const [name, content] of Object.entries(DECOYS)) {
    await fs.mkdir(join(outside, name, '..'), { recursive: true });
    await fs.writeFile(join(outside, name), content);
  }
  const decoysIntact = async (): Promise<boolean> => {
    for (const [name, content] of Object.entries(DECOYS)) {
      if ((await fs.readFile(join(outside, name), 'utf8').catch(() => undefined)) !== content) return false;
    }
    return true;
  };
  return { root, outside, decoysIntact };
}

export function hostPathPv(name: string, path: string): PersistentVolume {
  return {
    metadata: { name, annotations: { 'pv.kubernetes.io/provisioned-by': 'kubernetes.io/host-path' } },
    spec: { hostPath: { path }, persistentVolumeReclaimPolicy: 'Delete' },
  };
}

export async function exists(path: string): Promise<boolean> {
  return fs.lstat(path).then(
    () => true,
    () => false,
  );
}
