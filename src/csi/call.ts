/**
 * One unary CSI call over a grpc-js generic client: the request converted and encoded with
 * protobufjs (no proto-loader), a deadline on every call, an AbortSignal that cancels it (the
 * driver sees the stream reset), the response decoded and converted, and every failure a
 * `CsiCallError` classed by errors.ts. Each call is observed once: the sidecars' histogram and
 * a debug log line (method, duration, code, the request with its secrets stripped).
 */
import { performance } from 'node:perf_hooks';
import { Metadata, status, type Client, type ServiceError } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { decodeMessage, encodeMessage, withoutSecrets, type CsiMethod, type WireMessage } from './descriptor.js';
import { callError, codeName, goCodeName } from './errors.js';
import type { CsiCallMetrics } from './metrics.js';
import type { Rpc } from './rpcs.js';
import { CsiCallError, type CsiCallOptions } from './types.js';

/** What every call of one connection shares. */
export interface CallContext {
  client: Client;
  socketPath: string;
  timeoutMs: number;
  logger?: Logger;
  metrics?: CsiCallMetrics;
  /** The driver's name once GetPluginInfo has answered ('' before). */
  driverName(): string;
}

const identity = (b: Buffer): Buffer => b;

function encodeRequest<Req>(rpc: Rpc<Req, unknown>, req: Req): { wire: WireMessage; bytes: Buffer } {
  try {
    const wire = rpc.toWire(req);
    return { wire, bytes: encodeMessage(rpc.method.requestType, wire) };
  } catch (err) {
    throw callError(rpc.method.path, status.INVALID_ARGUMENT, `not sent: the request cannot be encoded: ${(err as Error).message}`, 'final');
  }
}

function decodeResponse<Res>(rpc: Rpc<never, Res>, bytes: Buffer): Res {
  try {
    return rpc.fromWire(decodeMessage(rpc.method.responseType, bytes));
  } catch (err) {
    // The driver answered, so whatever it was asked may have happened: the caller must ask again.
    throw callError(rpc.method.path, status.INTERNAL, `the driver's response cannot be read: ${(err as Error).message}`, 'in-progress');
  }
}

function errorOf(ctx: CallContext, path: string, err: ServiceError): CsiCallError {
  const code = typeof err.code === 'number' ? err.code : status.UNKNOWN;
  const details = err.details || err.message;
  return callError(path, code, code === status.UNAVAILABLE ? `${details} (CSI driver socket ${ctx.socketPath})` : details);
}

/** The call's one observation: the histogram, and the debug line with the request's secrets stripped. */
function observe(ctx: CallContext, method: CsiMethod, wire: WireMessage | undefined, started: number, code: number): void {
  const seconds = (performance.now() - started) / 1000;
  ctx.metrics?.observe(ctx.driverName(), method.path, goCodeName(code), seconds);
  const logger = ctx.logger;
  if (logger?.isLevelEnabled('debug')) {
    const request = wire ? withoutSecrets(method.requestType, wire) : undefined;
    logger.debug({ method: method.path, durationMs: Math.round(seconds * 1e6) / 1e3, code: codeName(code), request }, 'CSI call');
  }
}

/** Sends the encoded request and settles with the converted response or a CsiCallError. */
function send<Res>(ctx: CallContext, rpc: Rpc<never, Res>, wire: WireMessage, bytes: Buffer, o: CsiCallOptions, started: number): Promise<Res> {
  const { method } = rpc;
  const { signal } = o;
  return new Promise<Res>((resolve, reject) => {
    let call: { cancel(): void } | undefined;
    const onAbort = (): void => call?.cancel();
    const settle = (code: number, outcome: () => void): void => {
      signal?.removeEventListener('abort', onAbort);
      observe(ctx, method, wire, started, code);
      outcome();
    };
    const fail = (error: CsiCallError): void => settle(error.code, () => reject(error));
    const options = { deadline: Date.now() + (o.timeoutMs ?? ctx.timeoutMs) };
    try {
      call = ctx.client.makeUnaryRequest<Buffer, Buffer>(method.path, identity, identity, bytes, new Metadata(), options, (err, value) => {
        if (err) return fail(errorOf(ctx, method.path, err));
        let res: Res;
        try {
          res = decodeResponse(rpc, value ?? Buffer.alloc(0));
        } catch (decodeErr) {
          return fail(decodeErr as CsiCallError);
        }
        settle(status.OK, () => resolve(res));
      });
    } catch (err) {
      // grpc-js refuses a call on a closed connection synchronously.
      return fail(callError(method.path, status.UNAVAILABLE, `${(err as Error).message} (CSI driver socket ${ctx.socketPath})`));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Calls `rpc` with `req`: resolves with the converted response or rejects with a CsiCallError. */
export function unaryCall<Req, Res>(ctx: CallContext, rpc: Rpc<Req, Res>, req: Req, o: CsiCallOptions = {}): Promise<Res> {
  const started = performance.now();
  let encoded: { wire: WireMessage; bytes: Buffer };
  try {
    encoded = encodeRequest(rpc, req);
  } catch (err) {
    observe(ctx, rpc.method, undefined, started, (err as CsiCallError).code);
    return Promise.reject(err);
  }
  if (o.signal?.aborted) {
    observe(ctx, rpc.method, encoded.wire, started, status.CANCELLED);
    return Promise.reject(callError(rpc.method.path, status.CANCELLED, 'aborted before it was sent'));
  }
  return send(ctx, rpc, encoded.wire, encoded.bytes, o, started);
}
