/**
 * The test suite's fake CSI driver (test/csi/fake-driver.ts) as a process of its own, for the CSI
 * client bench: `node fake-driver-child.js SOCKET`. SIGTERM stops it.
 */
import { FakeCsiDriver } from '../../test/csi/fake-driver.js';

const socketPath = process.argv[2];
if (!socketPath) {
  console.error('usage: fake-driver-child.js SOCKET');
  process.exit(2);
}
const driver = await FakeCsiDriver.start({ socketPath, name: 'bench.csi.pv-controller.io', totalCapacity: 2n ** 60n });
process.once('SIGTERM', () => {
  void driver.stop().then(() => process.exit(0));
});
