/**
 * The snapshot handle of the file plugins (VolumeSnapshotContent's snapshotHandle): which plugin
 * kind cut it, the snapshot's name, and for a node-local plugin the node it lives on:
 *
 *   host-path:snap:v1:<snapshotName>            one central host-path plugin
 *   host-path:snap:v1:<snapshotName>@<node>     host-path volumes pinned to <node> (a node agent)
 *   nfs-subdir:snap:v1:<snapshotName>
 *
 * A handle is data a cluster admin can write (a pre-provisioned content names one), so it is
 * parsed strictly, never resolved as a path: the name is one plain file name of the characters a
 * generated name uses, the node a DNS subdomain; anything else (`..`, `/`, NUL, spaces, another
 * prefix, a trailing character) is not a handle of ours. Only the parsed name is ever joined to
 * a snapshot area's path (snapshot-area.ts), and that join goes through safe-path.
 */
import { PluginError } from '../api/errors.js';

export const SNAPSHOT_HANDLE_VERSION = 'v1';
/** Longest snapshot name: a backing name's limit (room for the temporary names' prefix and suffix). */
export const MAX_SNAPSHOT_NAME = 230;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const NODE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MAX_NODE = 253;

export interface ParsedSnapshotHandle {
  kind: string;
  snapshotName: string;
  node: string | undefined;
}

/** A snapshot name the file plugins accept: one plain, visible file name, no `..`. */
export function isSnapshotName(name: string): boolean {
  return typeof name === 'string' && name.length <= MAX_SNAPSHOT_NAME && NAME.test(name) && !name.includes('..');
}

export function isNodeName(node: string): boolean {
  return typeof node === 'string' && node.length <= MAX_NODE && NODE.test(node);
}

export function assertSnapshotName(name: string): void {
  if (!isSnapshotName(name)) {
    throw new PluginError('InvalidParameter', `snapshot name ${JSON.stringify(name)} is not a plain name of at most ${MAX_SNAPSHOT_NAME} characters [A-Za-z0-9_.-]`, false);
  }
}

export class SnapshotHandles {
  /** `kind`: the handle's first field (`host-path`, `nfs-subdir`); `node`: set for a node-local plugin. */
  constructor(
    private readonly kind: string,
    private readonly node: string | undefined,
  ) {}

  format(snapshotName: string): string {
    assertSnapshotName(snapshotName);
    const base = `${this.kind}:snap:${SNAPSHOT_HANDLE_VERSION}:${snapshotName}`;
    return this.node === undefined ? base : `${base}@${this.node}`;
  }

  /** The handle's fields when it is one of this kind's (whatever its node), else undefined. */
  parse(handle: string): ParsedSnapshotHandle | undefined {
    if (typeof handle !== 'string' || handle.length > 600) return undefined;
    const prefix = `${this.kind}:snap:${SNAPSHOT_HANDLE_VERSION}:`;
    if (!handle.startsWith(prefix)) return undefined;
    const rest = handle.slice(prefix.length);
    const at = rest.indexOf('@');
    const snapshotName = at < 0 ? rest : rest.slice(0, at);
    const node = at < 0 ? undefined : rest.slice(at + 1);
    if (!isSnapshotName(snapshotName) || (node !== undefined && !isNodeName(node))) return undefined;
    return { kind: this.kind, snapshotName, node };
  }

  /** Whether this plugin instance may act on the handle: its kind, and its own node (or none for a central plugin). */
  owns(handle: string): boolean {
    const parsed = this.parse(handle);
    return parsed !== undefined && parsed.node === this.node;
  }

  /**
   * The snapshot name of a handle this instance owns. A garbage handle is refused (InvalidParameter);
   * another node's is refused naming both nodes (restore of a node-local snapshot happens on its node).
   */
  nameOf(handle: string, action: string): string {
    const parsed = this.parse(handle);
    if (!parsed) {
      throw new PluginError('InvalidParameter', `${action}: ${JSON.stringify(String(handle).slice(0, 300))} is not a ${this.kind} snapshot handle`, false);
    }
    if (parsed.node !== this.node) {
      const theirs = parsed.node === undefined ? 'no node (a central plugin)' : `node "${parsed.node}"`;
      const ours = this.node === undefined ? 'no node (a central plugin)' : `node "${this.node}"`;
      throw new PluginError('NotSupported', `${action}: snapshot "${parsed.snapshotName}" lives on ${theirs}, and this plugin serves ${ours}; it can only be used there`, false);
    }
    return parsed.snapshotName;
  }
}
