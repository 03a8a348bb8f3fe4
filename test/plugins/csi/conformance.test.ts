/**
 * The CSI plugin in the plugin conformance suite, against the in-memory driver: core (idempotent
 * provision by name, idempotent delete — without a PV through the provision request, as the
 * controller's cleanup passes it), expand, modify, capacity and provenance (the PVs it makes carry an HMAC proof). The driver lists no LIST_VOLUMES
 * here: the plugin never claims list-backing-volumes (a CSI volume carries no cluster mark; see
 * src/plugins/csi/index.ts).
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { HmacProvenance } from '../../../src/controller/provenance/key.js';
import { createCsiPlugin } from '../../../src/plugins/csi/index.js';
import { runPluginConformance } from '../conformance/run.js';
import { FakeCsiDriver } from './fake-connection.js';

runPluginConformance('csi (in-memory driver)', async () => {
  const driver = new FakeCsiDriver({ controllerCapabilities: ['CREATE_DELETE_VOLUME', 'EXPAND_VOLUME', 'MODIFY_VOLUME', 'GET_CAPACITY'] });
  const plugin = await createCsiPlugin(driver, {
    clusterName: 'conformance',
    secrets: async () => undefined,
    topology: { nodeSegment: async () => undefined, allSegments: async () => [] },
    logger: pino({ level: 'silent' }),
    // Signs what it provisions, as the controller's plugin does: the provenance sub-suite checks the proof.
    provenance: new HmacProvenance(randomBytes(32)),
  });
  return {
    plugin,
    cleanup: async () => driver.close(),
    backingExists: async (name) => driver.volumes.has(name),
    parameters: { type: 'ssd' },
    invalidParameters: { parameters: { 'csi.storage.k8s.io/no-such-key': 'x' }, parameter: 'csi.storage.k8s.io/no-such-key' },
    attributes: { iops: '3000' },
  };
});
