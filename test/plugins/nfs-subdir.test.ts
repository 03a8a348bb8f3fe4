import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { NfsSubdirPlugin, patternProblems, renderPattern } from '../../src/plugins/nfs-subdir/index.js';
import type { ClaimInfo } from '../../src/plugins/api/core.js';
import { conformanceRequest, conformanceVolume } from './conformance/subject.js';
import { runPluginConformance } from './conformance/run.js';

async function tempDir(prefix: string): Promise<string> {
  return fs.realpath(await fs.mkdtemp(join(tmpdir(), prefix)));
}

async function exists(path: string): Promise<boolean> {
  return fs.lstat(path).then(
    () => true,
    () => false,
  );
}

/** Every directory under `dir` named `name`, at any depth (no symlinks followed). */
async function findDirs(dir: string, name: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    if (entry.name === name) found.push(path);
    found.push(...(await findDirs(path, name)));
  }
  return found;
}

/** The snapshot sub-suite's file hooks: the PV's NFS path under the mount it lies in. */
function nfsFiles(mounts: Array<{ server: string; share: string; mountPath: string }>) {
  const local = (pv: PersistentVolume, name: string): string => {
    const nfs = pv.spec.nfs!;
    const mount = mounts.find((m) => m.server === nfs.server && nfs.path.startsWith(`${m.share}/`))!;
    return join(mount.mountPath, nfs.path.slice(mount.share.length + 1), name);
  };
  return {
    writeFile: (pv: PersistentVolume, name: string, content: string) => fs.writeFile(local(pv, name), content),
    readFile: (pv: PersistentVolume, name: string) => fs.readFile(local(pv, name), 'utf8').catch(() => undefined),
  };
}

runPluginConformance('nfs-subdir', async () => {
  const mountPath = await tempDir('h6-nfs-conf-');
  return {
    ...nfsFiles([{ server: 'nfs.example', share: '/exports/k8s', mountPath }]),
    plugin: new NfsSubdirPlugin({ mounts: [{ server: 'nfs.example', share: '/exports/k8s', mountPath }] }),
    cleanup: () => fs.rm(mountPath, { recursive: true, force: true }),
    backingExists: async (name) => (await findDirs(mountPath, name)).length > 0,
  };
});

runPluginConformance('nfs-subdir (two mounts, pathPattern)', async () => {
  const base = await tempDir('h6-nfs-conf2-');
  const mounts = [
    { server: 'nfs-a', share: '/exports', mountPath: join(base, 'a') },
    { server: 'nfs-b', share: '/exports', mountPath: join(base, 'b') },
  ];
  for (const m of mounts) await fs.mkdir(m.mountPath);
  return {
    ...nfsFiles(mounts),
    plugin: new NfsSubdirPlugin({ mounts }),
    cleanup: () => fs.rm(base, { recursive: true, force: true }),
    backingExists: async (name) => (await findDirs(base, name)).length > 0,
    parameters: { server: 'nfs-b', share: '/exports', pathPattern: '${.PVC.namespace}/${.PVC.name}' },
    invalidParameters: { parameters: { server: 'nfs-c', share: '/exports' }, parameter: 'share' },
  };
});

function claim(overrides: Partial<ClaimInfo> = {}): ClaimInfo {
  return { name: 'data', namespace: 'team-a', uid: 'u1', labels: {}, annotations: {}, ...overrides };
}

describe('nfs-subdir pathPattern', () => {
  test('renders namespace, name, labels and annotations', () => {
    const c = claim({ labels: { app: 'db' }, annotations: { 'nfs.io/storage-path': 'fast' } });
    assert.equal(
      renderPattern('${.PVC.namespace}/${.PVC.labels.app}-${.PVC.name}/${.PVC.annotations.nfs.io/storage-path}', c),
      'team-a/db-data/fast',
    );
  });

  const hostileValues = ['../other-ns/x', '/etc', '..', 'a/b', 'x\0y', ''];
  for (const value of hostileValues) {
    test(`a claim value ${JSON.stringify(value)} is rejected, not cleaned or prefixed`, () => {
      assert.throws(
        () => renderPattern('${.PVC.namespace}/${.PVC.annotations.dir}', claim({ annotations: { dir: value } })),
        { name: 'PluginError', code: 'InvalidParameter' },
      );
      assert.throws(() => renderPattern('${.PVC.labels.dir}', claim({ labels: { dir: value } })), {
        code: 'InvalidParameter',
      });
    });
  }

  test('a "." value next to a literal "." cannot form ".."', () => {
    assert.throws(() => renderPattern('x/${.PVC.labels.d}.', claim({ labels: { d: '.' } })), { code: 'InvalidParameter' });
    assert.throws(() => renderPattern('x/.${.PVC.labels.d}', claim({ labels: { d: '.' } })), { code: 'InvalidParameter' });
    assert.equal(renderPattern('x/${.PVC.labels.d}.', claim({ labels: { d: '.a' } })), 'x/.a.');
  });

  test('a missing label is an error, not an empty component', () => {
    assert.throws(() => renderPattern('${.PVC.labels.nope}/x', claim()), /no value/);
  });

  test('a label or annotation named like an inherited property (__proto__, constructor) has no value: InvalidParameter, not a crash', () => {
    for (const pattern of ['${.PVC.labels.__proto__}', '${.PVC.annotations.constructor}', 'a/${.PVC.labels.toString}']) {
      assert.throws(() => renderPattern(pattern, claim()), { code: 'InvalidParameter', message: /no value/ }, pattern);
    }
  });

  const badPatterns: Array<[string, RegExp]> = [
    ['/abs/${.PVC.name}', /relative/],
    ['../${.PVC.name}', /"\.\." component/],
    ['a//${.PVC.name}', /empty/],
    ['${.PVC.uid}', /unknown variable/],
    ['${.PVC.name', /unterminated/],
    ['.pv-controller/${.PVC.name}', /may not start/],
  ];
  for (const [pattern, reason] of badPatterns) {
    test(`the pattern ${JSON.stringify(pattern)} is a problem naming pathPattern`, () => {
      assert.ok(patternProblems(pattern).some((p) => reason.test(p)), JSON.stringify(patternProblems(pattern)));
      const plugin = new NfsSubdirPlugin({ mounts: [{ server: 's', share: '/e', mountPath: '/nonexistent-mount' }] });
      assert.equal(plugin.validateParameters({ pathPattern: pattern })[0]?.parameter, 'pathPattern');
    });
  }
});

describe('nfs-subdir provisioning and deletion', () => {
  let base: string;
  let mountPath: string;
  let outside: string;
  let plugin: NfsSubdirPlugin;
  before(async () => {
    base = await tempDir('h6-nfs-');
    mountPath = join(base, 'mnt');
    outside = join(base, 'outside');
    await fs.mkdir(mountPath);
    await fs.mkdir(join(outside, 'victim'), { recursive: true });
    await fs.writeFile(join(outside, 'victim', 'precious'), 'keep');
    plugin = new NfsSubdirPlugin({ mounts: [{ server: 'nfs.example', share: '/exports/k8s/', mountPath }] });
  });
  after(() => fs.rm(base, { recursive: true, force: true }));

  test('the PV points at <server>:<share>/<rendered pattern>/<backing name>', async () => {
    const req = conformanceRequest(plugin, { parameters: { pathPattern: '${.PVC.namespace}/${.PVC.name}' } });
    const volume = await plugin.provision(req);
    const subPath = `${req.claim.namespace}/${req.claim.name}/${req.backingName}`;
    assert.deepEqual(volume.source, { nfs: { server: 'nfs.example', path: `/exports/k8s/${subPath}` } });
    assert.equal((await fs.stat(join(mountPath, subPath))).mode & 0o777, 0o777);
    const record = JSON.parse(await fs.readFile(join(mountPath, '.pv-controller', `${req.backingName}.json`), 'utf8'));
    assert.equal(record.subPath, subPath);
  });

  test('a hostile annotation creates nothing anywhere', async () => {
    const before = await fs.readdir(mountPath);
    const hostile = conformanceRequest(plugin, {
      parameters: { pathPattern: '${.PVC.annotations.dir}' },
      claim: claim({ annotations: { dir: '../../outside' } }),
    });
    await assert.rejects(plugin.provision(hostile), { code: 'InvalidParameter' });
    assert.deepEqual(await fs.readdir(mountPath), before);
    assert.deepEqual(await fs.readdir(outside), ['victim']);
  });

  function nfsPv(path: string, server = 'nfs.example', name = 'pv-hostile'): PersistentVolume {
    return {
      metadata: { name, annotations: { 'pv.kubernetes.io/provisioned-by': 'pv-controller.io/nfs-subdir' } },
      spec: { nfs: { server, path } },
    };
  }

  const hostilePvs: Array<[string, () => PersistentVolume]> = [
    ['a ".." sub-path', () => nfsPv('/exports/k8s/../../outside/victim')],
    ['the share itself', () => nfsPv('/exports/k8s')],
    ['another server', () => nfsPv('/exports/k8s/x', 'evil.example')],
    ['a path outside the share', () => nfsPv('/etc')],
    ['a symlink inside the share pointing outside', () => nfsPv('/exports/k8s/escape')],
    ['a path through a symlinked directory', () => nfsPv('/exports/k8s/escape/precious')],
  ];
  for (const [what, pv] of hostilePvs) {
    test(`delete and recycle of a PV with ${what} are Unsafe and touch nothing`, async () => {
      if (!(await exists(join(mountPath, 'escape')))) await fs.symlink(join(outside, 'victim'), join(mountPath, 'escape'));
      await assert.rejects(plugin.delete({ backingName: 'k-dynamic-pv-hostile', pv: pv() }), { code: 'Unsafe' });
      await assert.rejects(plugin.recycle(pv()), { code: 'Unsafe' });
      assert.equal(await fs.readFile(join(outside, 'victim', 'precious'), 'utf8'), 'keep');
      assert.ok(await exists(join(mountPath, 'escape')));
    });
  }

  test('a PV naming a namespace directory that holds other PVs\' volumes is refused', async () => {
    const req = conformanceRequest(plugin, { parameters: { pathPattern: '${.PVC.namespace}' } });
    await plugin.provision(req);
    const victim = join(mountPath, req.claim.namespace, req.backingName);
    await fs.writeFile(join(victim, 'data'), 'victim data');
    const intruder = nfsPv(`/exports/k8s/${req.claim.namespace}`, 'nfs.example', 'pv-intruder');
    await assert.rejects(plugin.delete({ backingName: 'k-dynamic-pv-intruder', pv: intruder }), /contains the volume of PV/);
    await assert.rejects(plugin.recycle(intruder), /contains the volume of PV/);
    assert.equal(await fs.readFile(join(victim, 'data'), 'utf8'), 'victim data');
  });

  test('onDelete archive (or archiveOnDelete "true") moves the directory into the mount\'s archive area, never beside it', async () => {
    const variants: Array<Record<string, string>> = [{ onDelete: 'archive', pathPattern: '${.PVC.namespace}' }, { archiveOnDelete: 'true' }];
    for (const parameters of variants) {
      const req = conformanceRequest(plugin, { parameters });
      const pv = conformanceVolume(plugin, req, await plugin.provision(req));
      const dir = join(mountPath, pv.spec.nfs!.path.slice('/exports/k8s/'.length));
      await fs.writeFile(join(dir, 'data'), 'archived data');
      await plugin.delete({ backingName: req.backingName, pv, parameters: req.parameters });
      assert.equal(await exists(dir), false);
      const [archive] = (await plugin.listArchives()).filter((a) => a.backingName === req.backingName);
      assert.ok(archive, 'listed');
      assert.equal(posix.dirname(archive.path), join(mountPath, '.pv-controller-archive'));
      assert.match(posix.basename(archive.path), new RegExp(`^${req.backingName}\\.archived-\\d{8}T\\d{6}Z$`));
      assert.equal(await fs.readFile(join(archive.path, 'data'), 'utf8'), 'archived data');
      await plugin.delete({ backingName: req.backingName, pv, parameters: req.parameters });
      assert.ok(await exists(archive.path), 'a repeated delete leaves the archive alone');
    }
  });

  test('the recorded onDelete=retain wins over a class that now says delete', async () => {
    const req = conformanceRequest(plugin, { parameters: { onDelete: 'retain' } });
    const pv = conformanceVolume(plugin, req, await plugin.provision(req));
    await fs.writeFile(join(mountPath, req.backingName, 'data'), 'retained');
    await plugin.delete({ backingName: req.backingName, pv, parameters: { onDelete: 'delete' } });
    assert.equal(await fs.readFile(join(mountPath, req.backingName, 'data'), 'utf8'), 'retained');
    assert.equal(await exists(join(mountPath, '.pv-controller', `${req.backingName}.json`)), false);
  });

  test('delete removes the tree without following a symlink inside it', async () => {
    const req = conformanceRequest(plugin);
    const pv = conformanceVolume(plugin, req, await plugin.provision(req));
    await fs.symlink(join(outside, 'victim'), join(mountPath, req.backingName, 'link'));
    await plugin.delete({ backingName: req.backingName, pv });
    assert.equal(await exists(join(mountPath, req.backingName)), false);
    assert.equal(await fs.readFile(join(outside, 'victim', 'precious'), 'utf8'), 'keep');
  });

  test('recycle empties the directory and leaves a symlink target outside intact', async () => {
    const req = conformanceRequest(plugin);
    const pv = conformanceVolume(plugin, req, await plugin.provision(req));
    await fs.mkdir(join(mountPath, req.backingName, 'sub'));
    await fs.symlink(join(outside, 'victim'), join(mountPath, req.backingName, 'sub', 'link'));
    await plugin.recycle(pv);
    assert.deepEqual(await fs.readdir(join(mountPath, req.backingName)), []);
    assert.equal(await fs.readFile(join(outside, 'victim', 'precious'), 'utf8'), 'keep');
  });

  test('metrics measure the volume directory through the mount', async () => {
    const req = conformanceRequest(plugin, { requestBytes: 1n << 20n });
    const pv = conformanceVolume(plugin, req, await plugin.provision(req));
    await fs.writeFile(join(mountPath, req.backingName, 'f'), Buffer.alloc(4096, 1));
    const m = await plugin.metricsFor(pv).getMetrics();
    assert.equal(m.capacityBytes, 1n << 20n);
    assert.equal(m.inodesUsed, 2n);
    await assert.rejects(plugin.metricsFor(nfsPv('/elsewhere/x')).getMetrics(), /not a configured mount/);
  });

  test('with several mounts, server and share must pick exactly one', () => {
    const two = new NfsSubdirPlugin({
      mounts: [
        { server: 'a', share: '/e', mountPath: '/m/a' },
        { server: 'b', share: '/e', mountPath: '/m/b' },
      ],
    });
    assert.equal(two.validateParameters({})[0]?.parameter, 'server');
    assert.equal(two.validateParameters({ share: '/e' })[0]?.parameter, 'server');
    assert.deepEqual(two.validateParameters({ server: 'a' }), []);
    assert.equal(two.validateParameters({ server: 'a', share: '/other' })[0]?.parameter, 'share');
    assert.equal(two.validateParameters({ server: 'a', onDelete: 'shred' })[0]?.parameter, 'onDelete');
    assert.deepEqual(two.validateParameters({ server: 'a', archiveOnDelete: 'true' }), [], "upstream's spelling of onDelete: archive");
    assert.equal(two.validateParameters({ server: 'a', archiveOnDelete: 'yes' })[0]?.parameter, 'archiveOnDelete');
  });
});
