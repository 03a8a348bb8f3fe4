import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HostPathPlugin } from '../../../src/plugins/host-path/index.js';
import type { ProvisionedVolume } from '../../../src/plugins/api/core.js';
import { conformanceRequest } from '../conformance/subject.js';

const pathOf = (volume: ProvisionedVolume): string => volume.source.hostPath?.path ?? volume.source.local?.path ?? assert.fail('no path');

async function entries(dir: string): Promise<string[]> {
  return (await fs.readdir(dir, { recursive: true })).map(String).filter((e) => !e.startsWith('.pv-controller')).sort();
}

describe('host-path naming and ownership the admin controls', () => {
  let base: string;
  let root: string;
  before(async () => {
    base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), 'h6-naming-')));
  });
  after(() => fs.rm(base, { recursive: true, force: true }));

  async function freshRoot(): Promise<HostPathPlugin> {
    root = await fs.mkdtemp(join(base, 'root-'));
    return new HostPathPlugin({ roots: [root] });
  }

  test('pathPattern places a volume under <namespace>/<name>, and two claims rendering the same path never share a directory', async () => {
    const plugin = await freshRoot();
    const parameters = { pathPattern: '${.PVC.namespace}/${.PVC.name}' };
    const claim = { name: 'data', namespace: 'team-a', uid: 'u1', labels: {}, annotations: {} };
    const first = await plugin.provision(conformanceRequest(plugin, { parameters, claim }));
    const secondReq = conformanceRequest(plugin, { parameters, claim: { ...claim, uid: 'u2' } });
    const second = await plugin.provision(secondReq);
    assert.ok(pathOf(first).startsWith(join(root, 'team-a', 'data') + '/'));
    assert.notEqual(pathOf(first), pathOf(second));
    await fs.writeFile(join(pathOf(first), 'keep'), 'first');
    await plugin.delete({ backingName: secondReq.backingName });
    assert.equal(await fs.readFile(join(pathOf(first), 'keep'), 'utf8'), 'first', 'deleting one leaves the other whole');
  });

  for (const [what, claim] of [
    ['an annotation value climbing out with "/.."', { annotations: { dir: '../../etc' } }],
    ['an annotation value ".."', { annotations: { dir: '..' } }],
    ['an annotation value with a newline', { annotations: { dir: 'a\nb' } }],
    ['an annotation value with an escape character', { annotations: { dir: 'a\u001bb' } }],
    ['a missing annotation', { annotations: {} }],
  ] as const) {
    test(`a claim with ${what} is refused for good and nothing is created`, async () => {
      const plugin = await freshRoot();
      const req = conformanceRequest(plugin, { parameters: { pathPattern: 'by-dir/${.PVC.annotations.dir}' } });
      await assert.rejects(plugin.provision({ ...req, claim: { ...req.claim, ...claim } }), (err: Error & { retryable?: boolean }) => err.retryable === false && /pathPattern/.test(err.message));
      assert.deepEqual(await entries(root), []);
    });
  }

  test('patterns that could leave the root, and pathPattern on a sized class, are refused by validation naming the parameter', async () => {
    const plugin = await freshRoot();
    for (const pathPattern of ['/abs/${.PVC.name}', '../${.PVC.name}', 'a//${.PVC.name}', 'a/./b', '', 'x\u0007y', '${.PVC.uid}', '.pv-controller/${.PVC.name}']) {
      const problems = plugin.validateParameters({ pathPattern });
      assert.equal(problems.length > 0, true, `"${pathPattern}" is refused`);
      assert.equal(problems[0]!.parameter, 'pathPattern');
    }
    assert.match(plugin.validateParameters({ pathPattern: '${.PVC.name}', sizing: 'image' })[0]?.message ?? '', /plain directories only/);
    assert.deepEqual(plugin.validateParameters({ pathPattern: 'ns/${.PVC.namespace}/${.PVC.labels.app}' }), []);
  });

  test('directoryUid, directoryGid and directoryMode give the volume directory its owner, group and mode', async () => {
    const plugin = await freshRoot();
    const volume = await plugin.provision(conformanceRequest(plugin, { parameters: { directoryUid: '1234', directoryGid: '5678', directoryMode: '2770' } }));
    const st = await fs.stat(pathOf(volume));
    if (process.getuid?.() === 0) {
      assert.equal(st.uid, 1234);
      assert.equal(st.gid, 5678);
    }
    assert.equal(st.mode & 0o7777, 0o2770);
    const plain = await plugin.provision(conformanceRequest(plugin));
    assert.equal((await fs.stat(pathOf(plain))).mode & 0o7777, 0o777, 'a class without them keeps 0777');
  });

  test('bad owner, group or mode values are refused naming the parameter', async () => {
    const plugin = await freshRoot();
    const bad = { directoryUid: '-1', directoryGid: '4294967295', directoryMode: '4755' };
    assert.deepEqual(plugin.validateParameters(bad).map((p) => p.parameter).sort(), ['directoryGid', 'directoryMode', 'directoryUid']);
    for (const directoryMode of ['777x', '8', 'rwx', '07777']) assert.equal(plugin.validateParameters({ directoryMode }).length, 1, directoryMode);
  });
});
