/**
 * Beside kube-controller-manager: a real kube-apiserver with kube-controller-manager running its
 * volume protection controllers and its expand controller switched off, our controller running
 * the binder, provisioner, reclaimer and expander with the aws-ebs plugin against the EC2
 * emulator. A grown claim is expanded once, by us, with the status and events upstream's
 * resizers leave, and kube-controller-manager says nothing about it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { startController } from '../../src/controller/controller.js';
import { defaultModules } from '../../src/controller/modules.js';
import { AWS_EBS_PLUGIN_NAME } from '../../src/plugins/aws-ebs/parameters.js';
import { PluginRegistry } from '../../src/plugins/registry.js';
import { Ec2Emulator } from '../emulators/ec2.js';
import { testControllerOptions } from '../helpers/cluster.js';
import { realControlPlaneSkip, startTestControlPlane } from '../helpers/control-plane.js';
import { awsPlugin, boundClaim, cloudClaim, cloudClass, type CloudSetup, volumeOf } from '../integration/cloud-helpers.js';
import { claimWhen, requestStorage, resizeStatusOf } from '../integration/expansion-helpers.js';
import { TestApi } from '../integration/provisioning-helpers.js';

const skip = realControlPlaneSkip();
const KCM_CONTROLLERS = ['persistentvolume-protection-controller', 'persistentvolumeclaim-protection-controller', '-persistentvolume-expander-controller'];

test('with kube-controller-manager\'s expand controller off, ours grows an EBS claim once: PV 3Gi, NodeResizePending, upstream events', { skip }, async () => {
  const ec2 = new Ec2Emulator();
  await ec2.start();
  const plane = await startTestControlPlane();
  const api = new TestApi(plane.admin());
  try {
    await plane.startControllerManager({ controllers: KCM_CONTROLLERS });
    const options = testControllerOptions(plane.controllerKubeconfigPath ?? plane.kubeconfigPath, '/nonexistent', {
      metricsBindAddress: '0',
      controllers: ['binder', 'provisioner', 'reclaimer', 'expander'],
    });
    const controller = await startController(options, {
      plugins: new PluginRegistry([awsPlugin(ec2)]),
      modules: defaultModules(),
      logger: pino({ level: process.env.PV_TEST_LOG ?? 'silent' }),
    });
    try {
      const s = { api } as unknown as CloudSetup;
      await api.createClass(cloudClass('grows', AWS_EBS_PLUGIN_NAME, { allowVolumeExpansion: true }));
      await api.createClaim(cloudClaim('data', 'grows', '1Gi'));
      await boundClaim(s, 'data');
      await requestStorage(s, 'data', '3Gi');
      const claim = await claimWhen(s, 'data', 'to wait for the node', (c) => resizeStatusOf(c) === 'NodeResizePending');
      assert.equal((await volumeOf(s, claim)).spec.capacity?.storage, '3Gi');
      assert.deepEqual(claim.status?.allocatedResources, { storage: '3Gi' });
      assert.deepEqual(ec2.modifications.history.map((m) => m.targetSize), [3]);
      const events = await api.eventsFor('default', 'data');
      const reasons = events.map((e) => e.reason);
      assert.ok(reasons.includes('Resizing') && reasons.includes('FileSystemResizeRequired'), reasons.join(','));
      assert.ok(!reasons.includes('ExternalExpanding'), 'kube-controller-manager did not take part');
    } finally {
      await controller.stop();
    }
  } finally {
    api.close();
    await plane.stop();
    await plane.removeDir();
    await ec2.stop();
  }
});
