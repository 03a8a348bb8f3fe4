import { CinderPlugin } from '../../../src/plugins/cinder/cinder-plugin.js';
import { runPluginConformance } from '../conformance/run.js';
import { withoutSnapshot } from '../conformance-view.js';
import { fastCloudOptions } from '../../emulators/fixtures.js';
import { OpenStackEmulator } from '../../emulators/openstack.js';

runPluginConformance('cinder', async () => {
  const os = new OpenStackEmulator();
  await os.start();
  const plugin = new CinderPlugin({
    auth: { authUrl: os.authUrl, username: os.username, password: os.password, projectName: os.projectName, regionName: os.region },
    ...fastCloudOptions(),
  });
  return {
    plugin: withoutSnapshot(plugin),
    cleanup: () => os.stop(),
    backingExists: (name) => Promise.resolve(os.volumes().some((volume) => volume.name === name)),
    parameters: { type: 'ssd', availability: 'az-2' },
    invalidParameters: { parameters: { type: 'ssd', zone: 'az-2' }, parameter: 'zone' },
    attributes: { type: 'fast' },
  };
});
