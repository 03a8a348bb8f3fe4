/**
 * A fake CSI driver for tests: an in-process grpc-js server built from the client's own
 * descriptor (src/csi/descriptor.json), serving Identity and Controller on a unix socket in a
 * fresh temporary directory.
 *
 *   const driver = await FakeCsiDriver.start({ name: 'fake.csi.test' });
 *   const conn = await connectCsi(driver.socketPath);
 *   ... driver.calls, driver.volumes ...
 *   await driver.stop();             // in after()/finally: force-closes calls, removes the dir
 *
 * By default it behaves like a small real driver (fake-driver-state.ts): volumes kept in memory,
 * CreateVolume idempotent by name (ALREADY_EXISTS for the same name with an incompatible size),
 * DeleteVolume of an unknown id succeeds, expand, modify, capacity, list with paging, snapshots.
 * Every RPC of the two services can be scripted instead: `driver.handle('CreateVolume', fn)`
 * where fn gets the request as a wire object (spec field names, int64 as decimal text, enums by
 * name) and returns the response the same way (int64 may also be a bigint) or throws
 * `new FakeCsiError(status.X, 'why')`; `driver.handle('CreateVolume')` restores the default.
 * `hangUntilCancelled` is a handler that never answers (for deadline and abort tests).
 *
 * Every call is logged in `driver.calls` (method, request, whether the client cancelled it),
 * and `waitForCall` waits for one with a deadline.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server, ServerCredentials, status, type ServerUnaryCall, type ServiceDefinition, type sendUnaryData } from '@grpc/grpc-js';
import { csiRoot, decodeMessage, encodeMessage, type CsiService, type WireMessage } from '../../src/csi/descriptor.js';
import { waitFor } from '../helpers/wait.js';
import { FakeCsiError, FakeDriverState, type FakeDriverOptions, type FakeVolume } from './fake-driver-state.js';

export { FakeCsiError, type FakeDriverOptions, type FakeVolume, type FakeSnapshot } from './fake-driver-state.js';

/** One call the driver received. */
export interface FakeCall {
  /** The RPC's name: 'CreateVolume', 'Probe', ... */
  method: string;
  request: WireMessage;
  /** The client cancelled it (abort, deadline) before it was answered. */
  cancelled: boolean;
  /** Resolves when the client cancels (never, if the call is answered first). */
  whenCancelled: Promise<void>;
  /** The deadline the client sent (ms since the epoch), Infinity when it sent none. */
  deadline: number;
}

/** A response as a handler may write it: a wire object whose int64 fields may be bigints. */
export type FakeResponse = Record<string, unknown>;
export type FakeHandler = (request: WireMessage, call: FakeCall) => FakeResponse | Promise<FakeResponse>;

/** A handler that answers only when the client gives up (then with an empty message nobody reads). */
export const hangUntilCancelled: FakeHandler = async (_request, call) => {
  await call.whenCancelled;
  return {};
};

const SERVICES: CsiService[] = ['Identity', 'Controller'];

/** bigints become decimal text (what protobufjs's fromObject reads exactly); arrays and objects are copied. */
function withInt64Text(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(withInt64Text);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withInt64Text(v)]));
  }
  return value;
}

const passThrough = (b: Buffer): Buffer => b;

export class FakeCsiDriver {
  /** Every call received, in order. */
  readonly calls: FakeCall[] = [];
  /** The default handlers' state: volumes, snapshots, capacity, readiness. */
  readonly state: FakeDriverState;
  private readonly scripted = new Map<string, FakeHandler>();
  private onCall: ((call: FakeCall) => void) | undefined;

  private constructor(
    private readonly server: Server,
    readonly dir: string,
    readonly socketPath: string,
    options: FakeDriverOptions,
  ) {
    this.state = new FakeDriverState(options);
  }

  /**
   * Starts a driver on `<new temp dir>/csi.sock` (or `socketPath`, whose directory must exist);
   * `onCall` hears of every call as it arrives.
   */
  static async start(options: FakeDriverOptions & { socketPath?: string; onCall?: (call: FakeCall) => void } = {}): Promise<FakeCsiDriver> {
    const dir = await mkdtemp(join(tmpdir(), 'fake-csi-'));
    const socketPath = options.socketPath ?? join(dir, 'csi.sock');
    const driver = new FakeCsiDriver(new Server(), dir, socketPath, options);
    driver.onCall = options.onCall;
    for (const service of SERVICES) driver.server.addService(driver.definition(service), driver.implementation(service));
    try {
      await new Promise<void>((resolve, reject) => {
        driver.server.bindAsync(`unix://${socketPath}`, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve()));
      });
    } catch (err) {
      driver.server.forceShutdown();
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
    return driver;
  }

  /** The default handlers' volumes, by name. */
  get volumes(): Map<string, FakeVolume> {
    return this.state.volumes;
  }

  /** Scripts `method` ('CreateVolume', 'Probe', ...); without a handler, restores the default behaviour. */
  handle(method: string, handler?: FakeHandler): void {
    if (handler) this.scripted.set(method, handler);
    else this.scripted.delete(method);
  }

  /** Forgets every scripted handler and the call log (the volumes stay). */
  reset(): void {
    this.scripted.clear();
    this.calls.length = 0;
  }

  callsOf(method: string): FakeCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** Waits (with a deadline) for a call of `method` that `matches`, and returns it. */
  waitForCall(method: string, matches: (call: FakeCall) => boolean = () => true, timeoutMs = 10_000): Promise<FakeCall> {
    return waitFor(() => this.calls.find((c) => c.method === method && matches(c)), `a ${method} call`, { timeoutMs });
  }

  /** Closes every call and the socket, and removes the temporary directory. */
  async stop(): Promise<void> {
    this.server.forceShutdown();
    await rm(this.dir, { recursive: true, force: true });
  }

  private definition(service: CsiService): ServiceDefinition {
    const methods = csiRoot().lookupService(`csi.v1.${service}`).methods;
    const definition: Record<string, ServiceDefinition[string]> = {};
    for (const name of Object.keys(methods)) {
      definition[name] = {
        path: `/csi.v1.${service}/${name}`,
        requestStream: false,
        responseStream: false,
        requestSerialize: passThrough,
        requestDeserialize: passThrough,
        responseSerialize: passThrough,
        responseDeserialize: passThrough,
      };
    }
    return definition;
  }

  private implementation(service: CsiService): Record<string, (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => void> {
    const methods = csiRoot().lookupService(`csi.v1.${service}`).methods;
    const out: Record<string, (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => void> = {};
    for (const [name, method] of Object.entries(methods)) {
      const requestType = csiRoot().lookupType(method.requestType);
      const responseType = csiRoot().lookupType(method.responseType);
      out[name] = (grpcCall, callback) => {
        const call = this.record(name, decodeMessage(requestType, grpcCall.request), grpcCall);
        this.answer(name, call)
          .then((response) => callback(null, encodeMessage(responseType, withInt64Text(response) as WireMessage)))
          .catch((err: unknown) => {
            if (err instanceof FakeCsiError) callback({ code: err.code, details: err.details });
            else callback({ code: status.UNKNOWN, details: err instanceof Error ? err.message : String(err) });
          });
      };
    }
    return out;
  }

  private record(method: string, request: WireMessage, grpcCall: ServerUnaryCall<Buffer, Buffer>): FakeCall {
    let cancel = (): void => undefined;
    const deadline = grpcCall.getDeadline();
    const call: FakeCall = {
      method,
      request,
      cancelled: false,
      whenCancelled: new Promise((resolve) => (cancel = resolve)),
      deadline: deadline instanceof Date ? deadline.getTime() : deadline,
    };
    grpcCall.on('cancelled', () => {
      call.cancelled = true;
      cancel();
    });
    this.calls.push(call);
    this.onCall?.(call);
    return call;
  }

  private async answer(method: string, call: FakeCall): Promise<FakeResponse> {
    const scripted = this.scripted.get(method);
    if (scripted) return scripted(call.request, call);
    const handler = this.state.handlers[method];
    if (!handler) throw new FakeCsiError(status.UNIMPLEMENTED, `${method} is not implemented by the fake driver`);
    return handler(call.request);
  }
}
