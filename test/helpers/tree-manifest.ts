/**
 * What a directory tree holds, for data-integrity tests: every entry by relative path with its
 * type, sha256 (files), link target (symlinks), mode and owner. Walked with a stack, never a
 * recursion, and without following a symlink.
 */
import { createHash } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';

export interface ManifestEntry {
  type: 'file' | 'dir' | 'symlink' | 'other';
  sha256?: string;
  target?: string;
  mode: number;
  uid: number;
  gid: number;
}

export async function sha256Of(path: string | Buffer): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Every entry below `root` (not `root` itself), keyed by its path relative to it; names are read
 * as bytes (a name that is not UTF-8 is kept exact) and keys written in latin1.
 */
export async function treeManifest(root: string): Promise<Map<string, ManifestEntry>> {
  const entries = new Map<string, ManifestEntry>();
  const stack: Buffer[] = [Buffer.alloc(0)];
  const slash = Buffer.from('/');
  while (stack.length > 0) {
    const rel = stack.pop()!;
    const dir = rel.length === 0 ? Buffer.from(root) : Buffer.concat([Buffer.from(`${root}/`), rel]);
    for (const name of await fs.readdir(dir, { encoding: 'buffer' })) {
      const path = Buffer.concat([dir, slash, name]);
      const keyBytes = rel.length === 0 ? name : Buffer.concat([rel, slash, name]);
      const key = keyBytes.toString('latin1');
      const st = await fs.lstat(path);
      const base = { mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
      if (st.isDirectory()) {
        entries.set(key, { type: 'dir', ...base });
        stack.push(keyBytes);
      } else if (st.isSymbolicLink()) {
        entries.set(key, { type: 'symlink', target: (await fs.readlink(path, { encoding: 'buffer' })).toString('latin1'), ...base });
      } else if (st.isFile()) {
        entries.set(key, { type: 'file', sha256: await sha256Of(path), ...base });
      } else {
        entries.set(key, { type: 'other', ...base });
      }
    }
  }
  return entries;
}
