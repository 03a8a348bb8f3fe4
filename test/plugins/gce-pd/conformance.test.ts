import { GcePdPlugin } from '../../../src/plugins/gce-pd/gce-pd-plugin.js';
import { runPluginConformance } from '../conformance/run.js';
import { withoutSnapshot } from '../conformance-view.js';
import { fastCloudOptions } from '../../emulators/fixtures.js';
import { GceEmulator } from '../../emulators/gce.js';

runPluginConformance('gce-pd', async () => {
  const gce = new GceEmulator();
  await gce.start();
  gce.acceptToken('conformance-token');
  const plugin = new GcePdPlugin({
    project: gce.project,
    endpoint: gce.computeEndpoint,
    authClient: { getRequestHeaders: () => Promise.resolve(new Headers({ authorization: 'Bearer conformance-token' })) },
    ...fastCloudOptions(),
  });
  return {
    plugin: withoutSnapshot(plugin),
    cleanup: () => gce.stop(),
    backingExists: (name) => Promise.resolve(gce.disks().some((disk) => disk.name === name)),
    parameters: { type: 'pd-ssd', zone: 'us-central1-b' },
    invalidParameters: { parameters: { type: 'pd-ssd', 'replication-type': 'triple' }, parameter: 'replication-type' },
    attributes: { iops: '7000' },
  };
});
