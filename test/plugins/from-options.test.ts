import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AWS_EBS_PLUGIN_NAME } from '../../src/plugins/aws-ebs/parameters.js';
import { CINDER_PLUGIN_NAME } from '../../src/plugins/cinder/parameters.js';
import type { TopologyResolver } from '../../src/plugins/cloud-common/zones.js';
import { buildPluginRegistry } from '../../src/plugins/from-options.js';
import { GCE_PD_PLUGIN_NAME } from '../../src/plugins/gce-pd/parameters.js';
import { captureLogger } from '../emulators/fixtures.js';

const noTopology: TopologyResolver = { zoneOfNode: async () => undefined };

describe('cloud plugins from options', () => {
  it('registers exactly the selected cloud plugin next to the configured directory plugins', async () => {
    const { logger } = captureLogger();
    const cases = [
      ['aws', AWS_EBS_PLUGIN_NAME],
      ['gce', GCE_PD_PLUGIN_NAME],
      ['openstack', CINDER_PLUGIN_NAME],
    ] as const;
    for (const [provider, name] of cases) {
      const registry = await buildPluginRegistry({ hostPathRoots: ['/srv/volumes'], cloud: { provider, topology: noTopology, gceProject: 'p', gceZone: 'z' } }, logger);
      assert.deepEqual(registry.all().map((p) => p.name), ['kubernetes.io/host-path', name]);
    }
    assert.deepEqual((await buildPluginRegistry({ hostPathRoots: [] }, logger)).all(), []);
  });

  it('logs which cloud plugin it registered and nothing from the credential environment', async () => {
    const { logger, text } = captureLogger();
    const saved = process.env.AWS_SECRET_ACCESS_KEY;
    process.env.AWS_SECRET_ACCESS_KEY = 'from-options-test-secret';
    try {
      await buildPluginRegistry({ hostPathRoots: [], cloud: { provider: 'aws' } }, logger);
    } finally {
      if (saved === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
      else process.env.AWS_SECRET_ACCESS_KEY = saved;
    }
    assert.match(text(), /registering the aws-ebs volume plugin/);
    assert.ok(!text().includes('from-options-test-secret'));
  });
});
