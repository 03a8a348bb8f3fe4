/**
 * The CSI client: one gRPC connection to one driver's unix socket, with the Identity and
 * Controller services of types.ts. `connectCsi` only builds the channel (grpc-js connects on the
 * first call and reconnects by itself, 100 ms to 5 s apart, as a driver restarts);
 * `waitForDriver` (wait-for-driver.ts) waits until the driver answers and is ready.
 *
 * How each call is made, timed out, cancelled, measured and logged is call.ts; how its messages
 * are converted is rpcs.ts and wire.ts; how its failures are classed (final or in-progress) is
 * the table in errors.ts.
 */
import { Client, credentials } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { parseCsiAddress } from './address.js';
import { unaryCall, type CallContext } from './call.js';
import type { CsiCallMetrics } from './metrics.js';
import { CONTROLLER_RPCS, IDENTITY_RPCS } from './rpcs.js';
import type { CsiCallOptions, CsiConnection, CsiControllerClient, CsiIdentityClient, PluginInfo } from './types.js';

export { waitForDriver, type WaitForDriverOptions } from './wait-for-driver.js';
export { CsiCallMetrics } from './metrics.js';

/** The deadline of a call that names none (the sidecars' --timeout default is 10 s to 15 s; CreateVolume of a cloud disk can take longer). */
export const DEFAULT_CSI_TIMEOUT_MS = 30_000;

export interface ConnectCsiOptions {
  /** Every call's deadline unless the call names its own (default DEFAULT_CSI_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Calls are logged at debug; secrets never are. */
  logger?: Logger;
  metrics?: CsiCallMetrics;
}

/** How grpc-js reconnects to a socket that went away: soon, and never more than 5 s apart. */
const CHANNEL_OPTIONS = {
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 5_000,
};

function identityClient(ctx: CallContext, named: (info: PluginInfo) => void): CsiIdentityClient {
  return {
    getPluginInfo: async (o?: CsiCallOptions) => {
      const info = await unaryCall(ctx, IDENTITY_RPCS.getPluginInfo, undefined, o);
      named(info);
      return info;
    },
    getPluginCapabilities: (o) => unaryCall(ctx, IDENTITY_RPCS.getPluginCapabilities, undefined, o),
    probe: (o) => unaryCall(ctx, IDENTITY_RPCS.probe, undefined, o),
  };
}

function controllerClient(ctx: CallContext): CsiControllerClient {
  const rpcs = CONTROLLER_RPCS;
  return {
    getCapabilities: (o) => unaryCall(ctx, rpcs.getCapabilities, undefined, o),
    createVolume: (req, o) => unaryCall(ctx, rpcs.createVolume, req, o),
    deleteVolume: (req, o) => unaryCall(ctx, rpcs.deleteVolume, req, o),
    expandVolume: (req, o) => unaryCall(ctx, rpcs.expandVolume, req, o),
    modifyVolume: (req, o) => unaryCall(ctx, rpcs.modifyVolume, req, o),
    getCapacity: (req, o) => unaryCall(ctx, rpcs.getCapacity, req, o),
    listVolumes: (req, o) => unaryCall(ctx, rpcs.listVolumes, req, o),
    createSnapshot: (req, o) => unaryCall(ctx, rpcs.createSnapshot, req, o),
    deleteSnapshot: (req, o) => unaryCall(ctx, rpcs.deleteSnapshot, req, o),
    listSnapshots: (req, o) => unaryCall(ctx, rpcs.listSnapshots, req, o),
  };
}

/**
 * A connection to the CSI driver at `address` (a socket path, unix:///path or unix:path). It does
 * not wait for the driver: the socket need not exist yet. Rejects only on an address that is no
 * unix socket.
 */
export async function connectCsi(address: string, o: ConnectCsiOptions = {}): Promise<CsiConnection> {
  const { socketPath, target } = parseCsiAddress(address);
  const timeoutMs = o.timeoutMs ?? DEFAULT_CSI_TIMEOUT_MS;
  if (!(timeoutMs > 0)) throw new Error(`CSI connection to ${socketPath}: timeoutMs must be positive, got ${timeoutMs}`);
  const client = new Client(target, credentials.createInsecure(), CHANNEL_OPTIONS);
  let driverName = '';
  const ctx: CallContext = {
    client,
    socketPath,
    timeoutMs,
    ...(o.logger ? { logger: o.logger.child({ csiSocket: socketPath }) } : {}),
    ...(o.metrics ? { metrics: o.metrics } : {}),
    driverName: () => driverName,
  };
  return {
    address: socketPath,
    identity: identityClient(ctx, (info) => {
      driverName = info.name;
    }),
    controller: controllerClient(ctx),
    close: () => client.close(),
  };
}
