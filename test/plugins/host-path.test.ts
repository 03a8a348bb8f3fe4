import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  LABEL_HOSTNAME,
  TAG_CREATED_FOR_PV_NAME,
  TAG_CREATED_FOR_PVC_NAME,
  TAG_CREATED_FOR_PVC_NAMESPACE,
} from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { MetricsError } from '../../src/metrics/provider.js';
import { HostPathPlugin, NODE_HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { PluginError } from '../../src/plugins/api/errors.js';
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

runPluginConformance('host-path', async () => {
  const base = await tempDir('h6-hp-conf-');
  const roots = [join(base, 'a'), join(base, 'b')];
  for (const root of roots) await fs.mkdir(root);
  return {
    plugin: new HostPathPlugin({ roots }),
    cleanup: () => fs.rm(base, { recursive: true, force: true }),
    backingExists: async (name) => (await Promise.all(roots.map((r) => exists(join(r, name))))).some(Boolean),
    invalidParameters: { parameters: { root: '/etc' }, parameter: 'root' },
    growable: false,
  };
});

runPluginConformance('host-path (local volumes pinned to a node)', async () => {
  const base = await tempDir('h6-hp-conf-local-');
  return {
    plugin: new HostPathPlugin({ roots: [base], nodeName: 'node-1' }),
    cleanup: () => fs.rm(base, { recursive: true, force: true }),
    backingExists: (name) => exists(join(base, name)),
    growable: false,
  };
});

runPluginConformance('host-path of a node agent (its own node only)', async () => {
  const base = await tempDir('h6-hp-conf-agent-');
  return {
    plugin: new HostPathPlugin({ roots: [base], nodeName: 'node-1', provisionerName: NODE_HOST_PATH_PROVISIONER }),
    cleanup: () => fs.rm(base, { recursive: true, force: true }),
    backingExists: (name) => exists(join(base, name)),
    growable: false,
    nodeName: 'node-1',
  };
});

function hostilePv(path: string, name = 'pv-hostile'): PersistentVolume {
  return {
    metadata: { name, annotations: { 'pv.kubernetes.io/provisioned-by': 'kubernetes.io/host-path' } },
    spec: { hostPath: { path }, persistentVolumeReclaimPolicy: 'Delete' },
  };
}

describe('host-path refuses to delete or recycle anything a hostile PV points at', () => {
  let base: string;
  let root: string;
  let outside: string;
  let plugin: HostPathPlugin;
  before(async () => {
    base = await tempDir('h6-hp-hostile-');
    root = join(base, 'root');
    outside = join(base, 'outside');
    await fs.mkdir(join(root, 'real-dir'), { recursive: true });
    await fs.mkdir(join(outside, 'victim'), { recursive: true });
    await fs.writeFile(join(outside, 'victim', 'precious'), 'keep me');
    await fs.writeFile(join(root, 'real-dir', 'inside'), 'keep me too');
    await fs.symlink(join(outside, 'victim'), join(root, 'link-out'));
    await fs.symlink(outside, join(root, 'linked-component'));
    plugin = new HostPathPlugin({ roots: [root] });
  });
  after(() => fs.rm(base, { recursive: true, force: true }));

  async function assertUntouched(): Promise<void> {
    assert.equal(await fs.readFile(join(outside, 'victim', 'precious'), 'utf8'), 'keep me');
    assert.equal(await fs.readFile(join(root, 'real-dir', 'inside'), 'utf8'), 'keep me too');
    assert.ok(await exists(join(root, 'link-out')));
    assert.ok(await exists(join(root, 'linked-component')));
    assert.ok(await exists(root));
  }

  const cases: Array<[string, () => string]> = [
    ['"/"', () => '/'],
    ['"/etc"', () => '/etc'],
    ['<root>/../x', () => `${root}/../outside/victim`],
    ['a symlink out of the root', () => join(root, 'link-out')],
    ['the root itself', () => root],
    ['a path inside the root through a symlinked component', () => join(root, 'linked-component', 'victim')],
    ['a relative path', () => 'root/real-dir'],
    ['the record directory', () => join(root, '.pv-controller')],
  ];
  for (const [what, path] of cases) {
    test(`delete of a PV pointing at ${what} is Unsafe and touches nothing`, async () => {
      await assert.rejects(plugin.delete({ backingName: 'kubernetes-dynamic-pv-hostile', pv: hostilePv(path()) }), {
        name: 'PluginError',
        code: 'Unsafe',
        retryable: false,
      });
      await assertUntouched();
    });
    test(`recycle of a PV pointing at ${what} is Unsafe and touches nothing`, async () => {
      await assert.rejects(plugin.recycle(hostilePv(path())), { name: 'PluginError', code: 'Unsafe' });
      await assertUntouched();
    });
  }

  test('a PV naming another PV\'s directory is refused', async () => {
    const req = conformanceRequest(plugin, { clusterName: 'kubernetes' });
    const volume = await plugin.provision(req);
    const victimPath = volume.source.hostPath!.path;
    await fs.writeFile(join(victimPath, 'data'), 'victim data');
    await assert.rejects(
      plugin.delete({ backingName: 'kubernetes-dynamic-pv-intruder', pv: hostilePv(victimPath, 'pv-intruder') }),
      (err: unknown) => err instanceof PluginError && err.code === 'Unsafe' && /belongs to PV/.test(err.message),
    );
    assert.equal(await fs.readFile(join(victimPath, 'data'), 'utf8'), 'victim data');
  });

  test('a PV naming a directory inside another PV\'s volume is refused', async () => {
    const req = conformanceRequest(plugin, { clusterName: 'kubernetes' });
    const victimPath = (await plugin.provision(req)).source.hostPath!.path;
    await fs.mkdir(join(victimPath, 'db'));
    await fs.writeFile(join(victimPath, 'db', 'rows'), 'victim rows');
    const intruder = hostilePv(join(victimPath, 'db'), 'pv-intruder');
    await assert.rejects(plugin.delete({ backingName: 'kubernetes-dynamic-pv-intruder', pv: intruder }), /inside the volume of PV/);
    await assert.rejects(plugin.recycle(intruder), /inside the volume of PV/);
    assert.equal(await fs.readFile(join(victimPath, 'db', 'rows'), 'utf8'), 'victim rows');
  });

  test('the literal "/" and "/etc" are refused before any filesystem change, whatever the roots', async () => {
    const before = await fs.readdir(root);
    for (const path of ['/', '/etc']) {
      await assert.rejects(plugin.delete({ backingName: 'x-dynamic-y', pv: hostilePv(path) }), { code: 'Unsafe' });
    }
    assert.deepEqual(await fs.readdir(root), before, 'not even the record directory was created');
  });
});

describe('host-path provisioning, deletion and recycling', () => {
  let base: string;
  let root: string;
  let outside: string;
  before(async () => {
    base = await tempDir('h6-hp-');
    root = join(base, 'root');
    outside = join(base, 'outside');
    await fs.mkdir(root);
    await fs.mkdir(outside);
    await fs.writeFile(join(outside, 'target'), 'outside target');
  });
  after(() => fs.rm(base, { recursive: true, force: true }));

  test('provision creates a 0777 directory and a record with the three tags beside it, not inside', async () => {
    const plugin = new HostPathPlugin({ roots: [root] });
    const req = conformanceRequest(plugin, { clusterName: 'kubernetes' });
    const volume = await plugin.provision(req);
    const dir = join(root, req.backingName);
    assert.deepEqual(volume.source, { hostPath: { path: dir, type: 'DirectoryOrCreate' } });
    assert.equal(volume.capacity, '1Gi');
    assert.equal((await fs.stat(dir)).mode & 0o777, 0o777);
    assert.deepEqual(await fs.readdir(dir), []);
    const record = JSON.parse(await fs.readFile(join(root, '.pv-controller', `${req.backingName}.json`), 'utf8'));
    assert.equal(record.clusterName, 'kubernetes');
    assert.deepEqual(record.tags, {
      [TAG_CREATED_FOR_PVC_NAME]: req.claim.name,
      [TAG_CREATED_FOR_PVC_NAMESPACE]: req.claim.namespace,
      [TAG_CREATED_FOR_PV_NAME]: req.pvName,
    });
    assert.ok(!Number.isNaN(Date.parse(record.createdAt)));
  });

  test('with a node name the PV is a local volume pinned to that node', async () => {
    const plugin = new HostPathPlugin({ roots: [root], nodeName: 'node-a' });
    const req = conformanceRequest(plugin);
    const volume = await plugin.provision(req);
    assert.deepEqual(volume.source, { local: { path: join(root, req.backingName) } });
    assert.deepEqual(volume.nodeAffinity, {
      required: { nodeSelectorTerms: [{ matchExpressions: [{ key: LABEL_HOSTNAME, operator: 'In', values: ['node-a'] }] }] },
    });
    await assert.rejects(plugin.provision({ ...conformanceRequest(plugin), selectedNode: 'node-b' }), { code: 'NotSupported' });
  });

  test('a directory that exists without a record is never adopted', async () => {
    const plugin = new HostPathPlugin({ roots: [root] });
    const req = conformanceRequest(plugin);
    await fs.mkdir(join(root, req.backingName));
    await fs.writeFile(join(root, req.backingName, 'someone-elses'), 'x');
    await assert.rejects(plugin.provision(req), /no pv-controller record/);
    await plugin.delete({ backingName: req.backingName });
    assert.ok(await exists(join(root, req.backingName, 'someone-elses')), 'deleting by name only removes recorded volumes');
  });

  test('a record left by a crash before mkdir is completed by the retry', async () => {
    const plugin = new HostPathPlugin({ roots: [root] });
    const req = conformanceRequest(plugin);
    await plugin.provision(req);
    await fs.rm(join(root, req.backingName), { recursive: true });
    const again = await plugin.provision(req);
    assert.equal(again.source.hostPath!.path, join(root, req.backingName));
    assert.ok(await exists(join(root, req.backingName)));
  });

  test('the root parameter picks a root and anything else is a problem naming the parameter', async () => {
    const second = join(base, 'second');
    await fs.mkdir(second);
    const plugin = new HostPathPlugin({ roots: [root, second] });
    assert.deepEqual(plugin.validateParameters({ root: second }), []);
    assert.deepEqual(plugin.validateParameters({ root: `${second}/` }), []);
    assert.equal(plugin.validateParameters({ root: join(second, 'sub') })[0]?.parameter, 'root');
    assert.equal(plugin.validateParameters({ size: '1' })[0]?.parameter, 'size');
    const req = conformanceRequest(plugin, { parameters: { root: second } });
    assert.equal((await plugin.provision(req)).source.hostPath!.path, join(second, req.backingName));
  });

  test('the root choice is the same for the same backing name, whatever order the roots are configured in', async () => {
    const r1 = join(base, 'r1');
    const r2 = join(base, 'r2');
    await fs.mkdir(r1);
    await fs.mkdir(r2);
    const req = conformanceRequest(new HostPathPlugin({ roots: [r1, r2] }));
    const first = await new HostPathPlugin({ roots: [r1, r2] }).provision(req);
    await new HostPathPlugin({ roots: [r1, r2] }).delete({ backingName: req.backingName });
    const second = await new HostPathPlugin({ roots: [r2, r1] }).provision(req);
    assert.deepEqual(second.source, first.source);
  });

  test('delete removes the tree without following a symlink inside, then the record', async () => {
    const plugin = new HostPathPlugin({ roots: [root] });
    const req = conformanceRequest(plugin);
    const pv = conformanceVolume(plugin, req, await plugin.provision(req));
    const dir = pv.spec.hostPath!.path;
    await fs.mkdir(join(dir, 'sub'));
    await fs.symlink(join(outside, 'target'), join(dir, 'sub', 'link'));
    await fs.symlink(outside, join(dir, 'dirlink'));
    await plugin.delete({ backingName: req.backingName, pv });
    assert.equal(await exists(dir), false);
    assert.equal(await exists(join(root, '.pv-controller', `${req.backingName}.json`)), false);
    assert.equal(await fs.readFile(join(outside, 'target'), 'utf8'), 'outside target');
  });

  test('recycle empties the directory, unlinks a symlink pointing outside and leaves its target intact', async () => {
    const plugin = new HostPathPlugin({ roots: [root] });
    const req = conformanceRequest(plugin);
    const pv = conformanceVolume(plugin, req, await plugin.provision(req));
    const dir = pv.spec.hostPath!.path;
    await fs.mkdir(join(dir, 'nested', 'deeper'), { recursive: true });
    await fs.writeFile(join(dir, 'nested', 'deeper', 'file'), 'data');
    await fs.symlink(outside, join(dir, 'out'));
    await fs.symlink(join(outside, 'target'), join(dir, 'nested', 'file-out'));
    await plugin.recycle(pv);
    assert.deepEqual(await fs.readdir(dir), []);
    assert.equal((await fs.stat(dir)).mode & 0o777, 0o777);
    assert.equal(await fs.readFile(join(outside, 'target'), 'utf8'), 'outside target');
  });

  test('metrics measure the volume directory, capped by the PV capacity', async () => {
    const plugin = new HostPathPlugin({ roots: [root] });
    const req = conformanceRequest(plugin, { requestBytes: 1024n * 1024n });
    const pv = conformanceVolume(plugin, req, await plugin.provision(req));
    await fs.writeFile(join(pv.spec.hostPath!.path, 'f'), Buffer.alloc(8192, 1));
    const m = await plugin.metricsFor(pv).getMetrics();
    assert.equal(m.capacityBytes, 1024n * 1024n);
    assert.ok(m.usedBytes >= 8192n);
    assert.equal(m.availableBytes, 1024n * 1024n - m.usedBytes);
    assert.equal(m.inodesUsed, 2n);
    await assert.rejects(plugin.metricsFor(hostilePv('/etc')).getMetrics(), MetricsError);
  });

  test('listBackingVolumes reports recorded volumes and unrecorded <cluster>-dynamic-* directories', async () => {
    const listRoot = join(base, 'list-root');
    await fs.mkdir(listRoot);
    const plugin = new HostPathPlugin({ roots: [listRoot] });
    const req = conformanceRequest(plugin, { clusterName: 'prod' });
    await plugin.provision(req);
    await fs.mkdir(join(listRoot, 'prod-dynamic-pvc-stray'));
    await fs.mkdir(join(listRoot, 'unrelated'));
    const listed = await plugin.listBackingVolumes('prod');
    assert.deepEqual(listed.map((v) => v.backingName).sort(), [req.backingName, 'prod-dynamic-pvc-stray'].sort());
    const recorded = listed.find((v) => v.backingName === req.backingName)!;
    assert.equal(recorded.claimName, req.claim.name);
    assert.equal(recorded.id, join(listRoot, req.backingName));
    assert.equal(listed.find((v) => v.backingName === 'prod-dynamic-pvc-stray')!.pvName, 'pvc-stray');
    assert.deepEqual(await plugin.listBackingVolumes('staging'), []);
  });

  test('a filesystem failure surfaces as a retryable PluginError naming the step', async () => {
    const fileRoot = join(base, 'not-a-directory');
    await fs.writeFile(fileRoot, 'x');
    const plugin = new HostPathPlugin({ roots: [fileRoot] });
    const req = conformanceRequest(plugin);
    await assert.rejects(plugin.provision(req), (err: unknown) => {
      assert.ok(err instanceof PluginError);
      assert.equal(err.code, 'Backend');
      assert.equal(err.retryable, true);
      assert.ok(err.message.startsWith(`provisioning "${req.backingName}"`), err.message);
      return true;
    });
  });

  test('a configured root of "/" is rejected at construction', () => {
    assert.throws(() => new HostPathPlugin({ roots: ['/'] }), { code: 'InvalidParameter' });
    assert.throws(() => new HostPathPlugin({ roots: ['relative'] }), { code: 'InvalidParameter' });
  });
});
