/**
 * A CSI driver's address, as the sidecars take it (`--csi-address`): a unix socket path
 * ("/csi/csi.sock" or a relative one), "unix:///abs/path" or "unix:path". Anything else (a TCP
 * address, "unix://host/...") is refused: CSI controllers reach their driver over a unix socket.
 */
import { isAbsolute, resolve } from 'node:path';

export interface CsiAddress {
  /** The socket's absolute path: what errors and logs name. */
  socketPath: string;
  /** The gRPC target for it ("unix:///abs/path"). */
  target: string;
}

export function parseCsiAddress(address: string): CsiAddress {
  let path: string;
  if (address.startsWith('unix://')) {
    path = address.slice('unix://'.length);
    if (!isAbsolute(path)) throw new Error(`CSI address ${JSON.stringify(address)}: unix:// takes an absolute path (unix:///path, or unix:relative/path)`);
  } else if (address.startsWith('unix:')) {
    path = address.slice('unix:'.length);
  } else if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(address) && !address.startsWith('/')) {
    throw new Error(`CSI address ${JSON.stringify(address)}: only unix sockets are supported (a path, unix:///path or unix:path)`);
  } else {
    path = address;
  }
  if (path === '' || path.includes('\0')) throw new Error(`CSI address ${JSON.stringify(address)}: no socket path`);
  const socketPath = resolve(path);
  return { socketPath, target: `unix://${socketPath}` };
}
