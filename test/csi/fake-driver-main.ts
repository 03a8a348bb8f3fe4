/**
 * The fake CSI driver (fake-driver.ts) as a process of its own, for tests and benches that need
 * a driver they can kill:
 *
 *   node dist/test/csi/fake-driver-main.js SOCKET [--name DRIVER] [--hang METHOD]... [--quiet]
 *
 * `--hang CreateVolume` makes that RPC wait until the client gives up (hangUntilCancelled).
 * It prints "listening SOCKET" once it serves, then each call as it arrives, one JSON line
 * ({"call":"CreateVolume","request":{...}}) unless --quiet; SIGTERM stops it and removes its
 * temp directory.
 */
import { parseArgs } from 'node:util';
import { FakeCsiDriver, hangUntilCancelled } from './fake-driver.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { name: { type: 'string' }, hang: { type: 'string', multiple: true, default: [] }, quiet: { type: 'boolean', default: false } },
});
const socketPath = positionals[0];
if (!socketPath) {
  console.error('usage: fake-driver-main.js SOCKET [--name DRIVER] [--hang METHOD]... [--quiet]');
  process.exit(2);
}
const driver = await FakeCsiDriver.start({
  socketPath,
  totalCapacity: 2n ** 60n,
  ...(values.name ? { name: values.name } : {}),
  ...(values.quiet ? {} : { onCall: (call) => console.log(JSON.stringify({ call: call.method, request: call.request })) }),
});
for (const method of values.hang) driver.handle(method, hangUntilCancelled);
process.once('SIGTERM', () => {
  void driver.stop().then(() => process.exit(0));
});
console.log(`listening ${socketPath}`);
