/**
 * The embedded API server, loaded only by the commands that run it (`up`, `apiserver`). It is a
 * package of its own (packages/apiserver, `@pv-controller/apiserver`), a development dependency
 * of the product: a source checkout (`npm ci`) has it, the controller's image does not, so the
 * image carries none of its dependencies (SQLite's native module, protobuf, JSON patch, TLS
 * generation). The other commands never import it.
 */
import type * as ServerModule from '@pv-controller/apiserver/server.js';
import type * as LogModule from '@pv-controller/apiserver/log.js';

export const EMBEDDED_APISERVER_MISSING =
  'the embedded API server (@pv-controller/apiserver) is not installed here: `up` and `apiserver` run from a source ' +
  'checkout (npm ci); this installation runs `controller`, `node-agent`, `usage` and `orphans` against a cluster';

export interface EmbeddedApiServer {
  startApiServer: typeof ServerModule.startApiServer;
  createLogger: typeof LogModule.createLogger;
}

function isMissingPackage(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException;
  return e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('@pv-controller/apiserver');
}

export async function loadEmbeddedApiServer(): Promise<EmbeddedApiServer> {
  try {
    const [server, log] = await Promise.all([
      import('@pv-controller/apiserver/server.js'),
      import('@pv-controller/apiserver/log.js'),
    ]);
    return { startApiServer: server.startApiServer, createLogger: log.createLogger };
  } catch (err) {
    if (isMissingPackage(err)) throw new Error(EMBEDDED_APISERVER_MISSING, { cause: err });
    throw err;
  }
}
