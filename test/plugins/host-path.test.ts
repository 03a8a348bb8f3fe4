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
import { HostPathPlugin, NODE_HOST_PATH_PROVISIONER, volumePath } from '../../src/plugins/host-path/index.js';
import { PluginError } from '../../src/plugins/api/errors.js';
import { conformanceRequest, conformanceVolume } from './conformance/subject.js';
import { runPluginConformance } from './conformance/run.js';
import { snapshotRequest } from './conformance/snapshot.js';

async function tempDir(prefix: string): Promise<string> {
  return fs.realpath(await fs.mkdtemp(join(tmpdir(), prefix)));
}

async function exists(path: string): Promise<boolean> {
  return fs.lstat(path).then(
    () => true,
    () => false,
  );
}

/** The snapshot sub-suite's file hooks for host-path volumes (the PV's directory). */
const hostPathFiles = {
  writeFile: (pv: PersistentVolume, name: string, content: string) => fs.writeFile(join(volumePath(pv)!, name), content),
  readFile: (pv: PersistentVolume, name: string) => fs.readFile(join(volumePath(pv)!, name), 'utf8').catch(() => undefined),
};

runPluginConformance('host-path', async () => {
  const base = await tempDir('h6-hp-conf-');
  const roots = [join(base, 'a'), join(base, 'b')];
  for (const root of roots) await fs.mkdir(root);
  return {
    ...hostPathFiles,
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
    ...hostPathFiles,
    foreignSnapshotId: (own: string) => own.replace(/@node-1$/, '@node-2'),
    plugin: new HostPathPlugin({ roots: [base], nodeName: 'node-1' }),
    cleanup: () => fs.rm(base, { recursive: true, force: true }),
    backingExists: (name) => exists(join(base, name)),
    growable: false,
  };
});

runPluginConformance('host-path of a node agent (its own node only)', async () => {
  const base = await tempDir('h6-hp-conf-agent-');
  return {
    ...hostPathFiles,
    foreignSnapshotId: (own: string) => own.replace(/@node-1$/, '@node-2'),
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

  test('a static PV outside the roots is declined with its path and the roots named; its own and other plugins\' PVs are not', () => {
    const plugin = new HostPathPlugin({ roots: [root] });
    const unowned: PersistentVolume = { metadata: { name: 'static' }, spec: { hostPath: { path: '/etc' } } };
    assert.equal(plugin.handles(unowned), false);
    assert.equal(plugin.declines(unowned), `hostPath "/etc" is outside every host-path root (${root})`);
    const local: PersistentVolume = { metadata: { name: 'local' }, spec: { local: { path: '/srv/data' } } };
    assert.equal(plugin.declines(local), `local path "/srv/data" is outside every host-path root (${root})`);
    assert.equal(plugin.declines({ metadata: { name: 'inside' }, spec: { hostPath: { path: join(root, 'v') } } }), undefined, 'one it handles');
    assert.equal(plugin.declines(hostilePv('/etc')), undefined, 'a provisioned volume is refused by delete itself, with its own message');
    assert.equal(plugin.declines({ metadata: { name: 'nfs' }, spec: { nfs: { server: 's', path: '/x' } } }), undefined, 'not its kind of volume');
  });

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

  test('a retry of the same backing name finds the root its record names, whatever order the roots are configured in', async () => {
    const r1 = join(base, 'r1');
    const r2 = join(base, 'r2');
    await fs.mkdir(r1);
    await fs.mkdir(r2);
    const req = conformanceRequest(new HostPathPlugin({ roots: [r1, r2] }));
    const first = await new HostPathPlugin({ roots: [r1, r2] }).provision(req);
    // A restarted controller with the roots listed the other way round retries the same request:
    // the record written with the first choice wins over the placement policy (root-placer.ts).
    for (const roots of [[r2, r1], [r1, r2]]) {
      const again = await new HostPathPlugin({ roots }).provision(req);
      assert.deepEqual(again.source, first.source, roots.join(', '));
    }
    const made = await Promise.all([r1, r2].map(async (r) => (await fs.readdir(r)).filter((n) => n === req.backingName).length));
    assert.equal(made[0]! + made[1]!, 1, 'one directory in all');
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

describe('node-local snapshots belong to their node', () => {
  test("a node agent's snapshot handle names its node; another node's agent neither owns it nor restores from it, and says which nodes", async () => {
    const base = await tempDir('h6-hp-snap-nodes-');
    try {
      const [rootA, rootB] = [join(base, 'a'), join(base, 'b')];
      await fs.mkdir(rootA);
      await fs.mkdir(rootB);
      const agentA = new HostPathPlugin({ roots: [rootA], nodeName: 'node-a', provisionerName: NODE_HOST_PATH_PROVISIONER });
      const agentB = new HostPathPlugin({ roots: [rootB], nodeName: 'node-b', provisionerName: NODE_HOST_PATH_PROVISIONER });
      const req = conformanceRequest(agentA, { selectedNode: 'node-a' });
      const pv = conformanceVolume(agentA, req, await agentA.provision(req));
      const { snapshotId } = await agentA.createSnapshot(snapshotRequest(pv));
      assert.match(snapshotId, /^host-path:snap:v1:conformance-snapshot-[0-9a-f-]+@node-a$/);
      assert.equal(agentB.ownsSnapshot(snapshotId), false);
      const restore = conformanceRequest(agentB, { selectedNode: 'node-b' });
      await assert.rejects(agentB.provisionFromSnapshot(restore, { snapshotId }), (err: unknown) => {
        assert.ok(err instanceof PluginError && err.code === 'NotSupported' && !err.retryable, String(err));
        assert.match(err.message, /node "node-a"/);
        assert.match(err.message, /node "node-b"/);
        return true;
      });
      await assert.rejects(agentB.deleteSnapshot({ snapshotId }), PluginError);
      await assert.rejects(agentB.provisionClone(restore, pv), /node "node-a".*node "node-b"/);
      assert.equal((await agentA.listSnapshots('conformance')).length, 1, 'the snapshot is still there');
    } finally {
      await fs.rm(base, { recursive: true, force: true });
    }
  });
});
