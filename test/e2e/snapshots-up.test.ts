/**
 * The data-integrity walk a user takes with `npm start` and kubectl alone: a claim from
 * examples/claim.yaml with files of known checksums (several sizes, a sparse file, a symlink, a
 * nested tree), a snapshot from examples/snapshot.yaml, then the files changed and deleted, then
 * examples/restore.yaml and examples/clone.yaml. The restored volume must hold exactly the
 * snapshot moment's data and the clone exactly the data at the moment it was made; deleting the
 * snapshot (class `standard`, deletionPolicy Delete) removes its content, and deleting the claims
 * their directories.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubectlPath, NO_KUBECTL, runKubectl } from '../helpers/apiserver.js';
import { startUp, type UpProcess } from '../helpers/up-process.js';
import { waitFor } from '../helpers/wait.js';

const here = dirname(fileURLToPath(import.meta.url));
function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'examples'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no repository root above ${from}`);
  }
}
const examples = join(findRepoRoot(here), 'examples');
const kubectl = kubectlPath();

let up: UpProcess | undefined;

before(async () => {
  if (kubectl) up = await startUp();
});

after(async () => {
  await up?.stop();
});

async function k(args: string[]): Promise<string> {
  const got = await runKubectl(args, up!.kubeconfigPath);
  assert.equal(got.code, 0, `kubectl ${args.join(' ')}: ${got.stderr}`);
  return got.stdout;
}

async function getJson<T>(args: string[]): Promise<T | undefined> {
  const got = await runKubectl([...args, '-o', 'json'], up!.kubeconfigPath);
  return got.code === 0 ? (JSON.parse(got.stdout) as T) : undefined;
}

interface Claim {
  spec: { volumeName?: string };
  status?: { phase?: string };
}

async function boundVolumeDir(name: string): Promise<string> {
  const claim = await waitFor(
    async () => {
      const c = await getJson<Claim>(['get', 'pvc', name]);
      return c?.status?.phase === 'Bound' ? c : undefined;
    },
    `claim ${name} Bound`,
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  const pv = await getJson<{ spec: { hostPath?: { path: string } } }>(['get', 'pv', claim.spec.volumeName!]);
  assert.ok(pv?.spec.hostPath?.path, `PV of ${name} is a hostPath volume`);
  return pv.spec.hostPath.path;
}

/** Every entry under `root` by relative path: a file's sha256 and size, a link's target, a directory. */
async function tree(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (rel: string): Promise<void> => {
    for (const name of (await readdir(join(root, rel))).sort()) {
      const path = join(rel, name);
      const st = await lstat(join(root, path));
      if (st.isSymbolicLink()) out.set(path, `link -> ${await readlink(join(root, path))}`);
      else if (st.isDirectory()) {
        out.set(path, 'dir');
        await walk(path);
      } else out.set(path, `file ${st.size} ${createHash('sha256').update(await readFile(join(root, path))).digest('hex')}`);
    }
  };
  await walk('');
  return out;
}

async function writeSparse(path: string, size: number, marker: Buffer): Promise<void> {
  const fh = await open(path, 'w');
  try {
    await fh.write(marker, 0, marker.length, size - marker.length);
  } finally {
    await fh.close();
  }
}

test('snapshot, restore and clone through npm start and kubectl keep exactly the data of their moment', { skip: kubectl ? false : NO_KUBECTL, timeout: 240_000 }, async () => {
  await k(['apply', '-f', join(examples, 'claim.yaml')]);
  const source = await boundVolumeDir('my-claim');

  await writeFile(join(source, 'small.txt'), 'hello, snapshot\n');
  await writeFile(join(source, 'random.bin'), randomBytes(3 * 1024 * 1024 + 17));
  await mkdir(join(source, 'nested', 'deeper'), { recursive: true });
  await writeFile(join(source, 'nested', 'deeper', 'leaf.txt'), randomBytes(4096));
  await writeFile(join(source, 'empty'), '');
  await writeSparse(join(source, 'sparse.img'), 64 * 1024 * 1024, Buffer.from('end of a sparse file'));
  await symlink('small.txt', join(source, 'link-to-small'));
  const atSnapshot = await tree(source);

  await k(['apply', '-f', join(examples, 'snapshot.yaml')]);
  const snap = await waitFor(
    async () => {
      const s = await getJson<{ status?: { readyToUse?: boolean; restoreSize?: string; boundVolumeSnapshotContentName?: string } }>(['get', 'volumesnapshot', 'my-snapshot']);
      return s?.status?.readyToUse === true ? s : undefined;
    },
    'my-snapshot readyToUse',
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  assert.ok(snap.status?.boundVolumeSnapshotContentName, 'the snapshot is bound to a content');
  assert.equal(snap.status?.restoreSize, '1Gi', 'a restore needs the source claim\'s size');

  // The source changes after the snapshot: a file rewritten, one deleted, one added, the link retargeted.
  await writeFile(join(source, 'small.txt'), 'changed after the snapshot\n');
  await rm(join(source, 'random.bin'));
  await writeFile(join(source, 'added-later.txt'), randomBytes(1000));
  await rm(join(source, 'link-to-small'));
  await symlink('nested/deeper/leaf.txt', join(source, 'link-to-small'));
  const atClone = await tree(source);
  assert.notDeepEqual(atClone, atSnapshot);

  await k(['apply', '-f', join(examples, 'restore.yaml')]);
  const restored = await boundVolumeDir('my-restored-claim');
  assert.deepEqual(await tree(restored), atSnapshot, 'the restored volume holds the snapshot moment');
  assert.notEqual(resolve(restored), resolve(source));

  await k(['apply', '-f', join(examples, 'clone.yaml')]);
  const clone = await boundVolumeDir('my-clone');
  assert.deepEqual(await tree(clone), atClone, 'the clone holds the source as it was when cloned');
  // Writing to the clone changes neither the source nor the restored volume.
  await writeFile(join(clone, 'small.txt'), 'only in the clone\n');
  assert.equal(await readFile(join(source, 'small.txt'), 'utf8'), 'changed after the snapshot\n');
  assert.deepEqual(await tree(restored), atSnapshot);

  // Class `standard` deletes: the snapshot's content goes with it.
  const content = snap.status!.boundVolumeSnapshotContentName!;
  await k(['delete', 'volumesnapshot', 'my-snapshot', '--wait=true', '--timeout=60s']);
  await waitFor(async () => (await runKubectl(['get', 'volumesnapshotcontent', content], up!.kubeconfigPath)).code !== 0, `content ${content} deleted`, {
    timeoutMs: 60_000,
    intervalMs: 200,
  });

  await k(['delete', 'pvc', 'my-claim', 'my-restored-claim', 'my-clone', '--wait=true', '--timeout=60s']);
  for (const dir of [source, restored, clone]) {
    await waitFor(() => !existsSync(dir), `${dir} removed`, { timeoutMs: 60_000, intervalMs: 200 });
  }
});
