/**
 * Exactly one process grows a volume: a node agent its own node's, the central controller the
 * rest (expander/resizer.ts). Decision-level tests on the fake context; the end-to-end ones are
 * in test/integration/node-agents-expansion.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { Expander } from '../../../src/controller/expander/expander.js';
import type { ExpanderScope } from '../../../src/controller/expander/resizer.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { HostPathPlugin, NODE_HOST_PATH_PROVISIONER } from '../../../src/plugins/host-path/index.js';
import type { VolumePlugin } from '../../../src/plugins/api/core.js';
import type { ExpandRequest } from '../../../src/plugins/api/capabilities/expand.js';
import { PluginRegistry } from '../../../src/plugins/registry.js';
import { FakeCluster } from '../../helpers/fake-context.js';

const ROOT = '/srv/pv-controller-test-root';

function grownClaim(status: PersistentVolumeClaim['status'] = {}): PersistentVolumeClaim {
  return {
    metadata: { name: 'c', namespace: 'ns', uid: 'u' },
    spec: { resources: { requests: { storage: '3Gi' } }, volumeName: 'pv' },
    status: { phase: 'Bound', capacity: { storage: '1Gi' }, ...status },
  };
}

function agentVolume(node: string): PersistentVolume {
  return {
    metadata: { name: 'pv', annotations: { 'pv.kubernetes.io/provisioned-by': NODE_HOST_PATH_PROVISIONER } },
    spec: {
      capacity: { storage: '1Gi' },
      local: { path: `${ROOT}/kubernetes-dynamic-pv` },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } },
      claimRef: { namespace: 'ns', name: 'c', uid: 'u' },
    },
  };
}

/** Node n1's agent plugin, its expand capability replaced by one that records what it was asked. */
function agentPlugin(asked: bigint[]): VolumePlugin {
  const real = new HostPathPlugin({ roots: [ROOT], nodeName: 'n1', provisionerName: NODE_HOST_PATH_PROVISIONER });
  return Object.assign(Object.create(real) as HostPathPlugin, {
    expand: (req: ExpandRequest) => {
      asked.push(req.sizeBytes);
      return Promise.resolve({ capacity: '3Gi', nodeExpansionRequired: false });
    },
  });
}

async function sync(fake: FakeCluster, plugins: VolumePlugin[], scope: ExpanderScope): Promise<void> {
  const expander = new Expander({ ctx: fake.ctx, plugins: new PluginRegistry(plugins), scope, logger: pino({ level: 'silent' }) });
  await expander.syncClaim(fake.claim('ns/c') as PersistentVolumeClaim);
  await expander.idle();
  await expander.stop();
}

test('the central controller leaves a node agent\'s volume to its agent: no ExternalExpanding, no write', async () => {
  const fake = new FakeCluster();
  fake.addVolume(agentVolume('n1'));
  fake.addClaim(grownClaim());
  await sync(fake, [], 'cluster');
  assert.deepEqual(fake.events, []);
  assert.deepEqual(fake.writes, []);
});

test('a node agent grows its own node\'s volume and names itself the claim\'s storage-resizer with Resizing', async () => {
  const fake = new FakeCluster();
  fake.addVolume(agentVolume('n1'));
  fake.addClaim(grownClaim());
  const asked: bigint[] = [];
  await sync(fake, [agentPlugin(asked)], 'node');
  assert.deepEqual(asked, [3n * 1024n ** 3n]);
  const [resizing] = fake.successfulWrites({ kind: 'PersistentVolumeClaim' });
  assert.equal(resizing.request?.metadata.annotations?.['volume.kubernetes.io/storage-resizer'], NODE_HOST_PATH_PROVISIONER);
  assert.equal((resizing.request as PersistentVolumeClaim).status?.allocatedResourceStatuses?.storage, 'ControllerResizeInProgress');
  assert.equal(fake.volume('pv')?.spec.capacity?.storage, '3Gi');
  const claim = fake.claim('ns/c');
  assert.deepEqual([claim?.status?.capacity?.storage, claim?.status?.allocatedResourceStatuses], ['3Gi', undefined]);
  assert.deepEqual(fake.eventReasons('ns/c'), ['Resizing', 'VolumeResizeSuccessful']);
});

test('a node agent leaves every volume not its own alone: another node\'s, or one no plugin of its own owns (no event, no write, no pre-resize tidy)', async () => {
  for (const pv of [agentVolume('n2'), { ...agentVolume('n1'), metadata: { name: 'pv', annotations: { 'pv.kubernetes.io/provisioned-by': 'ebs.csi.aws.com' } } }]) {
    const fake = new FakeCluster();
    fake.addVolume(pv);
    fake.addClaim(grownClaim());
    const asked: bigint[] = [];
    await sync(fake, [agentPlugin(asked)], 'node');
    assert.deepEqual([asked, fake.events, fake.writes], [[], [], []], JSON.stringify(pv.metadata));
  }
  const tidy = new FakeCluster();
  const cloud: PersistentVolume = {
    metadata: { name: 'pv', annotations: { 'volume.alpha.kubernetes.io/pre-resize-capacity': '1Gi' } },
    spec: { capacity: { storage: '3Gi' }, csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' }, claimRef: { namespace: 'ns', name: 'c', uid: 'u' } },
  };
  tidy.addVolume(cloud);
  tidy.addClaim({ ...grownClaim(), status: { phase: 'Bound', capacity: { storage: '3Gi' } } });
  await sync(tidy, [agentPlugin([])], 'node');
  assert.deepEqual(tidy.writes, [], 'the central controller removes the pre-resize annotation, not an agent');
  await sync(tidy, [], 'cluster');
  assert.equal(tidy.volume('pv')?.metadata.annotations?.['volume.alpha.kubernetes.io/pre-resize-capacity'], undefined, 'the central controller still does');
});
