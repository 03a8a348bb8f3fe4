/**
 * Containment, no-symlink and no-mount-crossing operations: the one implementation every
 * filesystem plugin uses.
 *
 * resolveInsideRoot decides, lexically and then component by component with lstat, whether a
 * path is strictly inside one of the configured roots. The destructive operations re-check that
 * and then walk again with file descriptors: each directory is opened relative to its already
 * opened parent with O_NOFOLLOW|O_DIRECTORY (through /proc/self/fd/<fd>/<name>, which the kernel
 * resolves to the exact directory the fd holds, i.e. openat/unlinkat/renameat semantics). So a
 * component swapped for a symlink after the check makes the open fail instead of being followed,
 * and a directory renamed while we work on it is still the one we empty. unlink, rmdir and
 * rename never follow their last component. The delete and recycle walk (tree-walk.ts) is a loop,
 * not a recursion, and keeps no path per level: memory and open descriptors stay bounded however
 * deep the volume's tree (a chain far beyond PATH_MAX included), time linear in its entries; a
 * directory it had to close is reopened as `..` of its child and must be the one it came from.
 *
 * Mounts: nothing is ever done across a mount point strictly below the root (the root itself
 * may be a mount point, e.g. its own filesystem or the NFS export). Two checks, both at the
 * moment of the operation:
 * - before anything changes, the mount table (/proc/self/mountinfo) is read: a mount point that
 *   is the target, one of its parents below the root, or anywhere inside the target refuses the
 *   whole operation (PluginError Unsafe, naming the mount), so nothing at all is deleted;
 * - every directory the walk opens (each component from the root down, and each directory the
 *   delete or recycle descends into or climbs back to) must be on the root's mount: the mount id of the
 *   opened descriptor (/proc/self/fdinfo `mnt_id:`) and its st_dev must equal the root's. This
 *   checks the directory actually opened, so bind mounts of the same filesystem are caught, and
 *   a path swapped after the table was read cannot lead the walk onto another mount.
 *
 * Residual races (documented, not closed):
 * - without /proc (not Linux), operations fall back to full paths re-checked with lstat just
 *   before each step: a writer inside the volume who swaps a directory for a symlink between
 *   that lstat and the readdir/unlink can redirect one step outside the tree; and mounts are
 *   then only seen by st_dev, so a bind mount of the same filesystem is not detected;
 * - with /proc, a directory we hold open that is moved elsewhere on the same filesystem (which
 *   only a host process with access outside the volume can do) is still emptied: we delete what
 *   was inside the volume when we opened it, wherever it went. Climbing back out of it to a
 *   directory the walk no longer holds open finds another parent, and the walk stops (retryably);
 * - the final rmdir of an emptied directory goes by name in its (held) parent: a writer who
 *   replaced it with another empty directory gets that one removed, nothing else;
 * - a mount made inside the tree after the mount table was read stops the walk where it is met
 *   (refused, Unsafe): what the walk had already deleted stays deleted, nothing on the mount is
 *   touched. A mount made on a directory we already hold open is not entered either (we keep
 *   working in the directory underneath it); its rmdir then fails EBUSY, reported as Unsafe
 *   naming the mount. A file bind-mounted after the check is likewise only refused (EBUSY).
 */
import { promises as fs, type Stats } from 'node:fs';
import { posix } from 'node:path';
import { describeMount, mountsCrossed, NEVER_ACROSS_A_MOUNT, readMountPoints } from './mount-points.js';
import { ignoreErrno, isErrno, lstatOrUndefined, OpenDir } from './no-follow.js';
import { emptyOpenDir, removeEntry } from './tree-walk.js';
import { PluginError } from '../api/errors.js';

export { isErrno } from './no-follow.js';

export interface ContainedPath {
  /** The canonical (realpath) root the path is inside. */
  root: string;
  /** The path, expressed under the canonical root. */
  path: string;
  /** False when the path (or one of its parents) does not exist. */
  exists: boolean;
}

interface CanonicalRoot {
  configured: string;
  canonical: string | undefined;
}


export function unsafe(candidate: string, roots: readonly string[], reason: string): PluginError {
  const allowed = roots.length > 0 ? roots.join(', ') : '(none configured)';
  return new PluginError('Unsafe', `refusing path "${candidate}": ${reason} (allowed roots: ${allowed})`, false);
}

/** A single path component that can never escape its parent: no separators, not `.`/`..`, no NUL. */
export function isSafeComponent(name: string): boolean {
  return name.length > 0 && name.length <= 255 && name !== '.' && name !== '..' && !/[/\0]/.test(name);
}

/** Absolute, no `.`/`..`/empty components; returns the components. */
function componentsOf(candidate: string, roots: readonly string[]): string[] {
  if (typeof candidate !== 'string' || candidate.length === 0) throw unsafe(String(candidate), roots, 'empty path');
  if (candidate.includes('\0')) throw unsafe(candidate, roots, 'path contains a NUL byte');
  if (!candidate.startsWith('/')) throw unsafe(candidate, roots, 'path is not absolute');
  if (candidate === '/') return [];
  const parts = candidate.slice(1).split('/');
  for (const part of parts) {
    if (part === '..') throw unsafe(candidate, roots, 'path contains a ".." component');
    if (part === '.' || part === '') throw unsafe(candidate, roots, 'path contains an empty or "." component');
  }
  return parts;
}

function isPrefix(prefix: readonly string[], parts: readonly string[]): boolean {
  return prefix.length <= parts.length && prefix.every((p, i) => parts[i] === p);
}

async function canonicalise(roots: readonly string[]): Promise<CanonicalRoot[]> {
  return Promise.all(
    roots.map(async (root) => {
      if (typeof root !== 'string' || !root.startsWith('/')) throw unsafe(String(root), roots, 'root is not absolute');
      const configured = posix.normalize(root).replace(/(.)\/+$/, '$1');
      const parts = componentsOf(configured, roots);
      if (parts.length === 0) throw unsafe(configured, roots, 'the filesystem root "/" cannot be a volume root');
      try {
        const canonical = await fs.realpath(configured);
        if (canonical === '/') throw unsafe(configured, roots, 'root resolves to "/"');
        return { configured, canonical };
      } catch (err) {
        if (err instanceof PluginError) throw err;
        if (isErrno(err, 'ENOENT')) return { configured, canonical: undefined };
        throw err;
      }
    }),
  );
}

/** The longest root whose configured or canonical form is a proper prefix of `parts`. */
function matchRoot(roots: CanonicalRoot[], parts: string[]): { root: CanonicalRoot; rest: string[] } | undefined {
  let best: { root: CanonicalRoot; rest: string[] } | undefined;
  for (const root of roots) {
    for (const form of [root.configured, root.canonical]) {
      if (form === undefined) continue;
      const rootParts = form.slice(1).split('/');
      if (rootParts.length < parts.length && isPrefix(rootParts, parts)) {
        const rest = parts.slice(rootParts.length);
        if (!best || rest.length < best.rest.length) best = { root, rest };
      }
    }
  }
  return best;
}

/**
 * Accepts only a path strictly inside one of `roots` (never a root itself, never an ancestor of
 * a root), with no `..`, no symlink in any existing component. Roots are canonicalised now, so
 * a changed configuration or a root that became a symlink is seen at once.
 */
export async function resolveInsideRoot(roots: string[], candidate: string): Promise<ContainedPath> {
  const parts = componentsOf(candidate, roots);
  if (parts.length === 0) throw unsafe(candidate, roots, 'path is the filesystem root');
  const canonicalRoots = await canonicalise(roots);
  for (const root of canonicalRoots) {
    for (const form of [root.configured, root.canonical]) {
      if (form !== undefined && isPrefix(parts, form.slice(1).split('/'))) {
        throw unsafe(candidate, roots, `path is a configured root or contains one (${root.configured})`);
      }
    }
  }
  const match = matchRoot(canonicalRoots, parts);
  if (!match) throw unsafe(candidate, roots, 'path is not inside any configured root');
  if (match.root.canonical === undefined) {
    throw new PluginError('Backend', `volume root "${match.root.configured}" does not exist`, true);
  }
  const root = match.root.canonical;
  const exists = await checkComponents(root, match.rest, candidate, roots);
  return { root, path: posix.join(root, ...match.rest), exists };
}

/** lstat each component under `root`: no symlinks; false when one does not exist. */
async function checkComponents(root: string, rest: string[], candidate: string, roots: string[]): Promise<boolean> {
  let current = root;
  for (const [i, part] of rest.entries()) {
    current = posix.join(current, part);
    let st: Stats;
    try {
      st = await fs.lstat(current);
    } catch (err) {
      if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return false;
      throw err;
    }
    if (st.isSymbolicLink()) throw unsafe(candidate, roots, `component "${current}" is a symbolic link`);
    if (i < rest.length - 1 && !st.isDirectory()) return false;
  }
  return true;
}

/** Opens each directory from the root down with O_NOFOLLOW; undefined if one does not exist. */
async function openParentOf(root: string, path: string): Promise<{ parent: OpenDir; leaf: string } | undefined> {
  const rest = posix.relative(root, path).split('/');
  const leaf = rest.pop();
  if (leaf === undefined || !isSafeComponent(leaf)) throw unsafe(path, [root], 'no file name below the root');
  let dir = await OpenDir.open(root);
  try {
    for (const part of rest) {
      const next = await dir.child(part);
      await dir.close();
      dir = next;
    }
  } catch (err) {
    await dir.close();
    if (isErrno(err, 'ENOENT')) return undefined;
    if (isErrno(err, 'ELOOP') || isErrno(err, 'ENOTDIR')) {
      throw unsafe(path, [root], 'a component became a symbolic link or non-directory');
    }
    throw err;
  }
  return { parent: dir, leaf };
}

/**
 * Refuses, before anything changes, a path for which a mount point strictly below the root is
 * the path itself, one of its parents, or inside it (the mount table, octal escapes decoded).
 */
async function refuseMountsCrossed(contained: ContainedPath, candidate: string): Promise<void> {
  const mounts = await readMountPoints();
  const [crossed] = mounts ? mountsCrossed(mounts, contained.root, contained.path) : [];
  if (crossed) {
    throw unsafe(candidate, [contained.root], `${describeMount(crossed)} below the root; ${NEVER_ACROSS_A_MOUNT}`);
  }
}

async function withParent<T>(
  root: string,
  path: string,
  body: (parent: OpenDir, leaf: string) => Promise<T>,
): Promise<T | undefined> {
  const contained = await resolveInsideRoot([root], path);
  if (!contained.exists) return undefined;
  await refuseMountsCrossed(contained, path);
  const opened = await openParentOf(contained.root, contained.path);
  if (!opened) return undefined;
  try {
    return await body(opened.parent, opened.leaf);
  } finally {
    await opened.parent.close();
  }
}

/**
 * Opens the directory `path` strictly inside `root` from the root down, never through a symlink,
 * after refusing (from the mount table) any mount on it, above it below the root, or inside it:
 * what a copy of a volume's tree starts from. Undefined when it does not exist.
 */
export function openDirNoFollow(root: string, path: string): Promise<OpenDir | undefined> {
  return withParent(root, path, (parent, leaf) =>
    parent.child(leaf).catch((err: unknown) => {
      if (isErrno(err, 'ENOENT')) return undefined;
      if (isErrno(err, 'ELOOP') || isErrno(err, 'ENOTDIR')) throw unsafe(path, [root], 'not a directory (a symbolic link?)');
      throw err;
    }),
  );
}

/**
 * Deletes `path` (a tree) strictly inside `root`, never following a symlink: a symlink inside is
 * unlinked, its target untouched. Containment is re-verified first; already gone ⇒ success.
 */
export async function removeTreeNoFollow(root: string, path: string, signal?: AbortSignal): Promise<void> {
  await withParent(root, path, async (parent, leaf) => {
    await removeEntry(parent, leaf, signal);
    // Success means gone: a tree that is still there (re-created meanwhile) is a failed attempt.
    if (await lstatOrUndefined(parent.entry(leaf))) {
      throw new PluginError('Transient', `"${path}" is still there after its tree was deleted (re-created meanwhile?)`, true);
    }
  });
}

/** Empties the directory `path` (its contents, not itself) without following symlinks: recycle. */
export async function emptyDirNoFollow(root: string, path: string, signal?: AbortSignal): Promise<void> {
  const done = await withParent(root, path, async (parent, leaf) => {
    const dir = await parent.child(leaf).catch((err: unknown) => {
      if (isErrno(err, 'ELOOP') || isErrno(err, 'ENOTDIR')) throw unsafe(path, [root], 'not a directory');
      throw err;
    });
    try {
      await emptyOpenDir(dir, signal);
    } finally {
      await dir.close();
    }
    return true;
  });
  if (!done) throw new PluginError('Backend', `volume directory "${path}" does not exist`, false);
}

/**
 * Renames `path` to `newName` in the same parent directory (archive), not following symlinks.
 * Returns the new path, or undefined when `path` does not exist. Refuses to replace anything.
 */
export async function renameInParentNoFollow(root: string, path: string, newName: string): Promise<string | undefined> {
  if (!isSafeComponent(newName)) throw unsafe(newName, [root], 'new name is not a single path component');
  return withParent(root, path, async (parent, leaf) => {
    if (await lstatOrUndefined(parent.entry(newName))) {
      throw new PluginError('Backend', `cannot rename "${path}": "${newName}" already exists beside it`, false);
    }
    await fs.rename(parent.entry(leaf), parent.entry(newName));
    return posix.join(posix.dirname(path), newName);
  });
}

/** The canonical (realpath) forms of the roots that exist now. */
export async function canonicalRoots(roots: string[]): Promise<string[]> {
  const found = await Promise.all(roots.map((root) => fs.realpath(root).catch(() => undefined)));
  return found.filter((root): root is string => root !== undefined);
}

/**
 * Moves `path` into the directory `into` (held open by the caller, e.g. the archive area) as
 * `newName`, not following symlinks: the source's parents are opened from the root down as for a
 * delete, mounts crossed are refused first, and rename(2) between the two held directories fails
 * (EXDEV, refused as Unsafe) rather than copy across a mount. Refuses to replace anything;
 * undefined when `path` does not exist.
 */
export async function moveIntoNoFollow(root: string, path: string, into: OpenDir, newName: string): Promise<string | undefined> {
  if (!isSafeComponent(newName)) throw unsafe(newName, [root], 'new name is not a single path component');
  return withParent(root, path, async (parent, leaf) => {
    if (await lstatOrUndefined(into.entry(newName))) throw new PluginError('Backend', `cannot move "${path}": "${into.pathOf(newName)}" already exists`, false);
    await fs.rename(parent.entry(leaf), into.entry(newName)).catch((err: unknown) => {
      throw isErrno(err, 'EXDEV') ? unsafe(path, [root], `moving it to "${into.pathOf(newName)}" would cross a mount`) : err;
    });
    return into.pathOf(newName);
  });
}

/**
 * Creates the directory `path` and any missing parents strictly inside `root`, opening each
 * existing component with O_NOFOLLOW. Parents get 0755; the leaf gets `mode` (umask ignored).
 * Returns false when the leaf already existed.
 */
export async function mkdirNoFollow(root: string, path: string, mode: number): Promise<boolean> {
  const contained = await resolveInsideRoot([root], path);
  await refuseMountsCrossed(contained, path);
  const rest = posix.relative(contained.root, contained.path).split('/');
  let dir = await OpenDir.open(contained.root);
  try {
    for (const [i, part] of rest.entries()) {
      const isLeaf = i === rest.length - 1;
      const created = await fs.mkdir(dir.entry(part), isLeaf ? mode : 0o755).then(
        () => true,
        ignoreErrno('EEXIST', false),
      );
      const next = await dir.child(part).catch((err: unknown) => {
        if (isErrno(err, 'ELOOP') || isErrno(err, 'ENOTDIR')) throw unsafe(path, [root], `"${part}" is not a directory`);
        throw err;
      });
      await dir.close();
      dir = next;
      if (isLeaf) {
        if (created === true) await fs.chmod(dir.self(), mode);
        return created === true;
      }
    }
    return false;
  } finally {
    await dir.close();
  }
}
