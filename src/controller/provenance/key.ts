/**
 * Proof that this controller made a CSI volume (and, below, a backend snapshot), for the one irreversible call it makes on a
 * driver: DeleteVolume. A PV names its volume in `spec.csi.volumeHandle`, and anyone who may write
 * a PV may write any handle there with `provisioned-by: <driver>` and policy Delete — the forged
 * annotation that once made a controller destroy another namespace's data. external-provisioner
 * trusts those fields; we do not. When a CSI volume is provisioned its PV gets
 * `pv-controller.io/csi-provenance`: an HMAC-SHA256, under a key only the controller reads, of the
 * driver, the volume handle and the PV's name. DeleteVolume is called only for a PV whose proof
 * verifies (or, with no PV, for the handle CreateVolume itself just returned for our own name).
 *
 * The key is a Secret in the controller's own namespace (the leader-election namespace, where it
 * also keeps its Leases), created at the first start with 32 random bytes; every replica reads the
 * same one. Losing it (the Secret deleted) costs only this: volumes provisioned before are no
 * longer deleted by us — they stay Released with a VolumeFailedDelete event naming the reason —
 * never a wrong deletion. A PV made by external-provisioner before pv-controller took the driver
 * over has no proof either: docs/csi.md says how an administrator adopts those.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { isAlreadyExists, isNotFound } from '@pv-controller/kube/errors.js';
import { RestTransport } from '../../kube-client/transport.js';

/** Signs and checks the provenance of CSI volumes (plugins/csi sees only this interface). */
export interface CsiProvenance {
  sign(driver: string, volumeHandle: string, pvName: string): string;
  verify(driver: string, volumeHandle: string, pvName: string, proof: string | undefined): boolean;
}

const KEY_BYTES = 32;
const PROOF_PREFIX = 'v1:';
const KEY_FIELD = 'key';

/**
 * The same proof for backend snapshots: a VolumeSnapshotContent this controller cut carries
 * `pv-controller.io/snapshot-provenance`, an HMAC of the driver, the snapshot handle and the
 * content's name under the same key (in its own domain, so no PV's proof is ever a content's).
 */
export interface SnapshotProvenance {
  signSnapshot(driver: string, snapshotHandle: string, contentName: string): string;
  verifySnapshot(driver: string, snapshotHandle: string, contentName: string, proof: string | undefined): boolean;
}

/** Tags the snapshot proofs' messages: a CSI volume's message has three fields, a snapshot's four. */
const SNAPSHOT_DOMAIN = 'snapshot';

export class HmacProvenance implements CsiProvenance, SnapshotProvenance {
  constructor(private readonly key: Buffer) {
    if (key.length < 16) throw new Error('a CSI provenance key must have at least 16 bytes');
  }

  sign(driver: string, volumeHandle: string, pvName: string): string {
    return this.mac([driver, volumeHandle, pvName]);
  }

  verify(driver: string, volumeHandle: string, pvName: string, proof: string | undefined): boolean {
    return this.matches(this.sign(driver, volumeHandle, pvName), proof);
  }

  signSnapshot(driver: string, snapshotHandle: string, contentName: string): string {
    return this.mac([SNAPSHOT_DOMAIN, driver, snapshotHandle, contentName]);
  }

  verifySnapshot(driver: string, snapshotHandle: string, contentName: string, proof: string | undefined): boolean {
    return this.matches(this.signSnapshot(driver, snapshotHandle, contentName), proof);
  }

  private mac(fields: string[]): string {
    // NUL cannot occur in a driver, handle or object name, so the message is unambiguous.
    return `${PROOF_PREFIX}${createHmac('sha256', this.key).update(fields.join('\u0000')).digest('base64url')}`;
  }

  private matches(expected: string, proof: string | undefined): boolean {
    if (proof === undefined || !proof.startsWith(PROOF_PREFIX) || proof.length > 128) return false;
    const want = Buffer.from(expected);
    const got = Buffer.from(proof);
    return want.length === got.length && timingSafeEqual(want, got);
  }
}

/** Where the key is kept (the API through a transport; fakes in tests). */
export interface KeyStore {
  /** The key's bytes, or undefined when the Secret does not exist. */
  read(): Promise<Buffer | undefined>;
  /** Creates the Secret; false when another replica created it first. */
  create(key: Buffer): Promise<boolean>;
}

/** The key, created when missing; a replica that loses the creation race reads the winner's. */
export async function loadOrCreateKey(store: KeyStore): Promise<Buffer> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await store.read();
    if (existing) {
      if (existing.length < 16) throw new Error('the CSI provenance key Secret holds fewer than 16 bytes: delete it to have a new one made');
      return existing;
    }
    const key = randomBytes(KEY_BYTES);
    if (await store.create(key)) return key;
  }
  throw new Error('the CSI provenance key Secret was neither readable nor creatable');
}

export function secretKeyStore(t: Pick<RestTransport, 'request'>, namespace: string, name: string): KeyStore {
  const collection = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`;
  return {
    async read() {
      try {
        const secret = await t.request<{ data?: Record<string, string> }>({ method: 'GET', verb: 'get', path: `${collection}/${encodeURIComponent(name)}` });
        const value = secret.data?.[KEY_FIELD];
        return value === undefined ? Buffer.alloc(0) : Buffer.from(value, 'base64');
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async create(key) {
      const body = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace, labels: { 'app.kubernetes.io/managed-by': 'pv-controller' } },
        type: 'Opaque',
        immutable: true,
        data: { [KEY_FIELD]: key.toString('base64') },
      };
      try {
        await t.request({ method: 'POST', verb: 'create', path: collection, body });
        return true;
      } catch (err) {
        if (isAlreadyExists(err)) return false;
        throw err;
      }
    },
  };
}

/** The key Secret's name for a controller whose state is named `name` (one key for CSI volumes and snapshots). */
export const provenanceSecretName = (name: string): string => `${name}-csi-provenance`;

/** The provenance of a controller whose state lives in `namespace`, its key Secret named `<name>-csi-provenance`. */
export async function loadProvenance(kc: KubeConfig, namespace: string, name: string): Promise<CsiProvenance> {
  const transport = new RestTransport(kc, { qps: 5, burst: 10 });
  try {
    return await loadProvenanceWith(transport, namespace, name);
  } finally {
    transport.close();
  }
}

/** The same, through a transport the caller keeps (the snapshot module's). */
export async function loadProvenanceWith(rest: Pick<RestTransport, 'request'>, namespace: string, name: string): Promise<HmacProvenance> {
  return new HmacProvenance(await loadOrCreateKey(secretKeyStore(rest, namespace, provenanceSecretName(name))));
}
