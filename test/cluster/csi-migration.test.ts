/**
 * Issue 26, "In-tree classes on a migrated cluster": a `kubernetes.io/aws-ebs` class is provisioned
 * by exactly one party, on the real control plane with the real external-provisioner beside ours
 * (bench/csi's side-by-side harness: Kubernetes' CSI mock started as `ebs.csi.aws.com` behind our
 * CSI proxy; kube-controller-manager runs only the protection controllers, our controller binds as
 * its replacement). Each case reads the driver's own call log (CreateVolume per claim) and the PV
 * list:
 *   1. ours with no EBS plugin and no CSI driver: external-provisioner provisions the claim, once;
 *   2. ours with the in-tree EBS plugin (`--cloud-provider aws`, the EC2 emulator): ours only, the
 *      driver never sees CreateVolume;
 *   3. ours driving the driver (`--csi-address`, no sidecar): ours through CSI, once.
 * Run: `npm run test:cluster -- csi-migration`.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ANN_PROVISIONED_BY, ANN_STORAGE_PROVISIONER, FINALIZER_EXTERNAL_PROVISIONER, FINALIZER_PV_CONTROLLER, FINALIZER_PV_PROTECTION } from '@pv-controller/kube/annotations.js';
import { csiMigrationTarget } from '@pv-controller/kube/csi-migration.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { csiPeersUnavailable } from '../../bench/csi/binaries.js';
import { csiClaim } from '../../bench/csi/claims.js';
import { CLAIMS_PATH, startCsiWorld, type CsiWorld, type CsiWorldOptions } from '../../bench/csi/world.js';
import { expectOk } from '../../bench/client/kube-client.js';
import { waitFor } from '../../bench/proc/child.js';
import { AWS_EBS_PLUGIN_NAME } from '../../src/plugins/aws-ebs/parameters.js';
import { Ec2Emulator } from '../emulators/ec2.js';
import { auditDir } from '../helpers/control-plane.js';
import { awsEnvironment } from '../integration/cloud-helpers.js';

const EBS_DRIVER = csiMigrationTarget(AWS_EBS_PLUGIN_NAME) ?? assert.fail('aws-ebs is a migrated plugin');
const skip = csiPeersUnavailable('external-provisioner') ?? csiPeersUnavailable('pv-controller') ?? false;
const DEADLINE_MS = 120_000;
/** Neither the sidecar's log, the driver's CreateVolume count nor the PV list changed for this long: the sidecar is idle. */
const QUIET_MS = 5000;

type MigrationOptions = Pick<CsiWorldOptions, 'under' | 'sidecarBeside'>;

/** A fresh control plane with the mock named `ebs.csi.aws.com` and a `kubernetes.io/aws-ebs` class; stopped after `body`. */
async function inMigratedWorld(name: string, options: MigrationOptions, body: (world: CsiWorld) => Promise<void>): Promise<void> {
  // Under test:cluster the plane's audit log goes where the run checks the controller's requests.
  const dir = await mkdtemp(join(auditDir() ?? tmpdir(), `csi-migration-${name}-`));
  const world = await startCsiWorld({
    provisioner: 'pv-controller',
    dir,
    planeDir: dir,
    etcdUrl: process.env.PV_TEST_ETCD_URL,
    controllerServiceAccount: true,
    driverName: EBS_DRIVER,
    classProvisioner: AWS_EBS_PLUGIN_NAME,
    workers: 4,
    ...options,
  });
  try {
    await body(world);
  } finally {
    await world.stop();
    // test:cluster removes its audit directory itself once it has read the log.
    if (!auditDir()) await rm(dir, { recursive: true, force: true });
  }
}

function sidecarLog(world: CsiWorld): string {
  const logPath = world.sidecar?.provisioner.logPath ?? assert.fail('a sidecar runs');
  return existsSync(logPath) ? readFileSync(logPath, 'utf8') : '';
}

/** Resolves once external-provisioner's informers are synced (it logs so at the default verbosity). */
async function sidecarStarted(world: CsiWorld): Promise<void> {
  await waitFor('external-provisioner has started its controller', () => {
    world.checkAlive();
    return sidecarLog(world).includes('Started provisioner controller') ? true : undefined;
  }, DEADLINE_MS, 200);
}

async function createClaim(world: CsiWorld, name: string): Promise<string> {
  const created = expectOk(await world.client.raw('POST', CLAIMS_PATH, JSON.stringify(csiClaim(name))), `create claim ${name}`);
  return (JSON.parse(created.body) as PersistentVolumeClaim).metadata.uid ?? assert.fail('the claim has a uid');
}

async function boundClaim(world: CsiWorld, name: string): Promise<PersistentVolumeClaim> {
  return waitFor(`claim ${name} Bound`, async () => {
    world.checkAlive();
    const claim = JSON.parse(expectOk(await world.client.raw('GET', `${CLAIMS_PATH}/${name}`), `get claim ${name}`).body) as PersistentVolumeClaim;
    return claim.status?.phase === 'Bound' ? claim : undefined;
  }, DEADLINE_MS, 200);
}

async function volumes(world: CsiWorld): Promise<PersistentVolume[]> {
  return (JSON.parse(expectOk(await world.client.raw('GET', '/api/v1/persistentvolumes'), 'list PVs').body) as { items: PersistentVolume[] }).items;
}

/** CreateVolume calls the driver logged in all, and those whose name carries the claim's uid. */
function createCalls(world: CsiWorld, uid: string): { all: number; forClaim: number } {
  const ledger = world.driver.ledger.refresh();
  const forClaim = [...ledger.createCallsByName].filter(([n]) => n.includes(uid)).reduce((sum, [, c]) => sum + c, 0);
  return { all: ledger.calls.get('CreateVolume') ?? 0, forClaim };
}

/**
 * Waits (deadline DEADLINE_MS) until the sidecar's log has not grown, the driver has logged no
 * further CreateVolume and no PV changed (resourceVersions) for QUIET_MS: whatever the sidecar was
 * going to do about the claim it has done, and no one is writing the PV in a loop.
 */
async function sidecarIdle(world: CsiWorld, uid: string): Promise<void> {
  const logPath = world.sidecar?.provisioner.logPath ?? assert.fail('a sidecar runs');
  let last = '';
  let since = Date.now();
  await waitFor(`external-provisioner idle for ${QUIET_MS} ms`, async () => {
    world.checkAlive();
    const pvs = (await volumes(world)).map((pv) => pv.metadata.resourceVersion).join(',');
    const state = `${statSync(logPath).size}/${createCalls(world, uid).all}/${pvs}`;
    if (state !== last) [last, since] = [state, Date.now()];
    return Date.now() - since >= QUIET_MS ? true : undefined;
  }, DEADLINE_MS, 250);
}

/** A claim created once the sidecar runs, waited for until Bound and the sidecar idle (sidecarIdle). */
async function claimBesideSidecar(world: CsiWorld, name: string): Promise<{ uid: string; claim: PersistentVolumeClaim }> {
  await sidecarStarted(world);
  const uid = await createClaim(world, name);
  const claim = await boundClaim(world, name);
  await sidecarIdle(world, uid);
  return { uid, claim };
}

/** The one driver volume and the one PV, which is the claim's; asserted. */
async function theDriverVolumeAndPv(world: CsiWorld, claim: PersistentVolumeClaim): Promise<{ volumeId: string; pv: PersistentVolume }> {
  const live = world.driver.ledger.refresh().liveVolumes();
  assert.equal(live.length, 1, 'the driver holds one volume');
  const pvs = await volumes(world);
  assert.equal(pvs.length, 1, 'one PV');
  assert.equal(pvs[0].spec.claimRef?.uid, claim.metadata.uid, 'the claim\'s');
  assert.equal(pvs[0].metadata.name, claim.spec.volumeName);
  return { volumeId: live[0].id, pv: pvs[0] };
}

describe('a kubernetes.io/aws-ebs class on a migrated cluster is provisioned by exactly one party', { skip, timeout: 20 * 60_000 }, () => {
  it('with neither our EBS plugin nor the driver configured, our binder hands the claim to ebs.csi.aws.com and external-provisioner provisions it once, writing an awsElasticBlockStore PV it also deletes', async () => {
    await inMigratedWorld('sidecar', { under: { drivesCsi: false }, sidecarBeside: {} }, async (world) => {
      const { uid, claim } = await claimBesideSidecar(world, 'migrated');
      assert.equal(claim.metadata.annotations?.[ANN_STORAGE_PROVISIONER], EBS_DRIVER, 'our binder annotated the driver name');
      assert.deepEqual(createCalls(world, uid), { all: 1, forClaim: 1 }, 'one CreateVolume, for this claim');
      const { volumeId, pv } = await theDriverVolumeAndPv(world, claim);
      // external-provisioner translates the PV of a migrated class back to the in-tree source.
      assert.equal(pv.spec.csi, undefined, 'no spec.csi');
      assert.equal(pv.spec.awsElasticBlockStore?.volumeID, volumeId, 'awsElasticBlockStore names the driver volume');
      assert.equal(pv.metadata.annotations?.[ANN_PROVISIONED_BY], AWS_EBS_PLUGIN_NAME, 'provisioned-by: the class\'s in-tree name');
      assert.ok(pv.metadata.finalizers?.includes(FINALIZER_EXTERNAL_PROVISIONER), 'external-provisioner\'s deletion finalizer');
      // Deleting the claim: the sidecar deletes the volume; ours leaves the PV to it (never Failed).
      expectOk(await world.client.raw('DELETE', `${CLAIMS_PATH}/migrated`), 'delete claim migrated');
      await waitFor('the PV gone and the driver volume deleted', async () => {
        world.checkAlive();
        const gone = (await volumes(world)).length === 0 && world.driver.ledger.refresh().deleted.has(volumeId);
        return gone ? true : undefined;
      }, DEADLINE_MS, 250);
    });
  });

  it('with our in-tree EBS plugin (--cloud-provider aws), ours provisions the claim, the driver beside it never sees CreateVolume, and the PV is not written in a loop', async () => {
    const ec2 = new Ec2Emulator();
    await ec2.start();
    try {
      const options: MigrationOptions = { under: { drivesCsi: false, extraArgs: ['--cloud-provider', 'aws'], env: awsEnvironment(ec2) }, sidecarBeside: {} };
      await inMigratedWorld('in-tree', options, async (world) => {
        const { uid, claim } = await claimBesideSidecar(world, 'in-tree');
        assert.equal(claim.metadata.annotations?.[ANN_STORAGE_PROVISIONER], AWS_EBS_PLUGIN_NAME, 'annotated with the in-tree name');
        assert.deepEqual(createCalls(world, uid), { all: 0, forClaim: 0 }, 'the driver saw no CreateVolume');
        assert.equal(ec2.volumes().length, 1, 'one EBS volume in the emulator');
        const pvs = await volumes(world);
        assert.equal(pvs.length, 1, 'one PV');
        const [pv] = pvs;
        assert.equal(pv.spec.claimRef?.uid, claim.metadata.uid);
        assert.equal(pv.spec.awsElasticBlockStore?.volumeID.endsWith(ec2.volumes()[0].id), true, 'the PV names the EBS volume');
        assert.equal(pv.metadata.annotations?.[ANN_PROVISIONED_BY], AWS_EBS_PLUGIN_NAME);
        // The sidecar owns every PV provisioned under its in-tree name too: it adds its finalizer, which ours leaves be.
        assert.deepEqual(pv.metadata.finalizers?.slice().sort(), [FINALIZER_EXTERNAL_PROVISIONER, FINALIZER_PV_CONTROLLER, FINALIZER_PV_PROTECTION].sort());
        // Deleting the claim: the EBS volume and the PV go (the sidecar's DeleteVolume of the same id is a second delete, not a leak).
        expectOk(await world.client.raw('DELETE', `${CLAIMS_PATH}/in-tree`), 'delete claim in-tree');
        await waitFor('the PV and the EBS volume gone', async () => {
          world.checkAlive();
          return (await volumes(world)).length === 0 && ec2.volumes().length === 0 ? true : undefined;
        }, DEADLINE_MS, 250);
        assert.equal(createCalls(world, uid).all, 0, 'still no CreateVolume');
      });
    } finally {
      await ec2.stop();
    }
  });

  it('with the driver given to ours (--csi-address, no sidecar), ours provisions the claim through CSI once', async () => {
    await inMigratedWorld('ours-csi', {}, async (world) => {
      const uid = await createClaim(world, 'through-csi');
      const claim = await boundClaim(world, 'through-csi');
      assert.deepEqual(createCalls(world, uid), { all: 1, forClaim: 1 }, 'one CreateVolume, for this claim');
      const { volumeId, pv } = await theDriverVolumeAndPv(world, claim);
      assert.equal(pv.spec.csi?.driver, EBS_DRIVER);
      assert.equal(pv.spec.csi.volumeHandle, volumeId);
      // Ours writes the driver's name where external-provisioner would have written the in-tree one.
      assert.equal(claim.metadata.annotations?.[ANN_STORAGE_PROVISIONER], EBS_DRIVER);
      assert.equal(pv.metadata.annotations?.[ANN_PROVISIONED_BY], EBS_DRIVER);
    });
  });
});
