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
import { decodeMessage, encodeMessage, withoutSecrets, type WireMessage } from './descriptor.js';
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

function observe(ctx: CallContext, rpc: Rpc<never, unknown>, wire: WireMessage | undefined, started: number, code: number): void {
  const seconds = (performance.now() - started) / 1000;
  ctx.metrics?.observe(ctx.driverName(), rpc.method.path, goCodeName(code), seconds);
  const logger = ctx.logger;
  if (logger?.isLevelEnabled('debug')) {
    const request = wire ? withoutSecrets(rpc.method.requestType, wire) : undefined;
    logger.debug({ method: rpc.method.path, durationMs: Math.round(seconds * 1e6) / 1e3, code: codeName(code), request }, 'CSI call');
  }
}

/** Calls `rpc` with `req`: resolves with the converted response or rejects with a CsiCallError. */
export function unaryCall<Req, Res>(ctx: CallContext, rpc: Rpc<Req, Res>, req: Req, o: CsiCallOptions = {}): Promise<Res> {
  const started = performance.now();
  const path = rpc.method.path;
  let encoded: { wire: WireMessage; bytes: Buffer };
  try {
    encoded = encodeRequest(rpc, req);
  } catch (err) {
    observe(ctx, rpc as Rpc<never, Res>, undefined, started, (err as CsiCallError).code);
    return Promise.reject(err);
  }
  const { wire, bytes } = encoded;
  const { signal } = o;
  if (signal?.aborted) {
    observe(ctx, rpc as Rpc<never, Res>, wire, started, status.CANCELLED);
    return Promise.reject(callError(path, status.CANCELLED, 'aborted before it was sent'));
  }
  const timeoutMs = o.timeoutMs ?? ctx.timeoutMs;
  return new Promise<Res>((resolve, reject) => {
    const finish = (code: number, outcome: () => void): void => {
      signal?.removeEventListener('abort', onAbort);
      observe(ctx, rpc as Rpc<never, Res>, wire, started, code);
      outcome();
    };
    let call: { cancel(): void } | undefined;
    const onAbort = (): void => call?.cancel();
    try {
      call = ctx.client.makeUnaryRequest<Buffer, Buffer>(path, identity, identity, bytes, new Metadata(), { deadline: Date.now() + timeoutMs }, (err, value) => {
        if (err) {
          const error = errorOf(ctx, path, err);
          finish(error.code, () => reject(error));
          return;
        }
        try {
          const res = decodeResponse(rpc as Rpc<never, Res>, value ?? Buffer.alloc(0));
          finish(status.OK, () => resolve(res));
        } catch (decodeErr) {
          finish((decodeErr as CsiCallError).code, () => reject(decodeErr));
        }
      });
    } catch (err) {
      // grpc-js refuses a call on a closed connection synchronously.
      const error = callError(path, status.UNAVAILABLE, `${(err as Error).message} (CSI driver socket ${ctx.socketPath})`);
      finish(error.code, () => reject(error));
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
