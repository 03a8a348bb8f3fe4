/**
 * The host-path plugin's roots, each with what the admin configured for it (a capacity, a weight),
 * measured and chosen among for each new volume (placement.ts decides; this file measures and
 * reserves). The caller runs `reserve` and every sized provision under one lock, so the choice and
 * the record that claims the space are one step: two concurrent provisions never both see room for
 * one. The accounting is read from the roots' records each time, so a restart (or a crash between
 * the reservation and the directory) finds exactly what was promised before it.
 */
import { promises as fs } from 'node:fs';
import { posix } from 'node:path';
import type { ProvisionRequest } from '../api/core.js';
import { PluginError } from '../api/errors.js';
import { RecordExists, writeRecord, type VolumeRecord } from '../fs-common/metadata-record.js';
import { findRecords } from '../fs-common/directory-volume.js';
import { resolveInsideRoot } from '../fs-common/safe-path.js';
import { classRoom, configuredFitProblem, fitProblem, plainRemainingBytes, remainingBytes, rootCapacity, type RootCapacity } from './capacity.js';
import { isConfiguredRoot, normaliseRoot, realpathOrSelf, sizingOf } from './host-path-helpers.js';
import { chooseRoot, placementOf, usableBy, type Placement, type RootCandidate } from './placement.js';

export const HOST_PATH_PARAMETER_ROOT = 'root';

/** What the admin said of one root (`--host-path-root-capacity`, `--host-path-root-weight`). */
export interface RootLimits {
  /** The most the root's volumes may be given together (claim sizes); none: its filesystem decides. */
  capacityBytes?: bigint;
  /** Its share under the `weighted` policy (default 1; 0: no volume of a weighted class). */
  weight?: number;
}

export class RootPlacer {
  /** Limits by configured root and by its real path (records and contents name either). */
  private readonly limits = new Map<string, RootLimits>();

  constructor(
    readonly roots: readonly string[],
    limits: Readonly<Record<string, RootLimits>>,
    private readonly overcommitRatio: number,
  ) {
    for (const [key, value] of Object.entries(limits)) {
      const root = normaliseRoot(key);
      if (!roots.includes(root)) throw new PluginError('InvalidParameter', `host-path root limits name "${key}", which is not a configured root (${roots.join(', ')})`, false);
      if (value.capacityBytes !== undefined && value.capacityBytes <= 0n) throw new PluginError('InvalidParameter', `host-path root "${root}": capacity must be positive`, false);
      if (value.weight !== undefined && !(Number.isInteger(value.weight) && value.weight >= 0)) {
        throw new PluginError('InvalidParameter', `host-path root "${root}": weight must be a whole number ≥ 0, got ${value.weight}`, false);
      }
      this.limits.set(root, value);
      this.limits.set(realpathOrSelf(root), value);
    }
  }

  private limitsOf(root: string): RootLimits {
    return this.limits.get(root) ?? {};
  }

  /** One root's numbers, with its configured capacity. */
  capacityOf(root: string): Promise<RootCapacity> {
    return rootCapacity(root, this.overcommitRatio, this.limitsOf(root).capacityBytes);
  }

  /** Every root's numbers (CSIStorageCapacity, `ProvisioningFailed` messages). */
  capacities(): Promise<RootCapacity[]> {
    return Promise.all(this.roots.map((root) => this.capacityOf(root)));
  }

  /** The roots a class may place volumes on: the one its `root` parameter names, else every root its policy uses. */
  rootsFor(parameters: Record<string, string>): string[] {
    const chosen = parameters[HOST_PATH_PARAMETER_ROOT];
    if (chosen !== undefined && isConfiguredRoot(this.roots, chosen)) return [normaliseRoot(chosen)];
    const policy = placementOf(parameters);
    return this.roots.filter((root) => usableBy(policy, this.limitsOf(root).weight ?? 1));
  }

  /** What a class can still get on this node: the largest room of the roots it may use. */
  async classCapacity(parameters: Record<string, string>): Promise<{ capacityBytes: bigint; maximumVolumeBytes: bigint }> {
    const measured = await Promise.all(this.rootsFor(parameters).map((root) => this.capacityOf(root).catch(() => undefined)));
    return classRoom(measured.filter((c): c is RootCapacity => c !== undefined), sizingOf(parameters) === 'image');
  }

  /**
   * The root (its real path) a new volume of `bytes` goes to: `preferred` (a restore's or clone's
   * source root, which a reflink needs) or the class's `root` parameter when given, else the root
   * the class's policy picks among those that can hold it. Refused, retryably and with every
   * root's reason, when none can. Call it under the plugin's placement lock.
   */
  async choose(parameters: Record<string, string>, bytes: bigint, preferred?: string): Promise<string> {
    const explicit = parameters[HOST_PATH_PARAMETER_ROOT] ?? preferred;
    const roots = explicit !== undefined ? [explicit] : this.rootsFor(parameters);
    if (roots.length === 0) throw new PluginError('InvalidParameter', 'no host-path root takes volumes of this class (every root has weight 0)', false);
    const sized = sizingOf(parameters) === 'image';
    // One root that promises nothing for plain directories (the single-root install): nothing to measure.
    if (roots.length === 1 && !sized && this.limitsOf(roots[0]!).capacityBytes === undefined) return realRoot(roots[0]!);
    const policy: Placement = placementOf(parameters);
    const candidates: RootCandidate[] = [];
    const problems: string[] = [];
    for (const root of roots) {
      let c: RootCapacity;
      try {
        c = await this.capacityOf(root);
      } catch (err) {
        problems.push(`host-path root "${root}" is not available: ${(err as Error).message}`);
        continue;
      }
      const problem = sized ? fitProblem(c, bytes) : configuredFitProblem(c, bytes);
      if (problem) {
        problems.push(problem);
        continue;
      }
      // A plain directory on a root without a configured capacity is not held to its free space (it promises none).
      const room = sized ? remainingBytes(c) : c.configuredBytes === undefined ? maxOf(plainRemainingBytes(c), bytes) : plainRemainingBytes(c);
      candidates.push({ root, roomBytes: room, givenBytes: c.allocatedBytes + c.plainBytes, weight: this.limitsOf(root).weight ?? 1 });
    }
    const best = chooseRoot(candidates, bytes, policy);
    if (!best) throw new PluginError('Backend', problems.join('; ') || `no host-path root can hold ${bytes} bytes`, true);
    return realRoot(best.root);
  }

  /**
   * The root of a new plain directory volume, with its record written there: the reservation that
   * makes the space the volume's before anything else is done. A volume that already has a record
   * (a retry after a crash) keeps its root.
   */
  async reserve(req: ProvisionRequest, record: VolumeRecord, preferred?: string): Promise<string> {
    const existing = await this.existingRoot(req.backingName);
    if (existing !== undefined) return existing;
    const root = await this.choose(req.parameters, req.requestBytes, preferred);
    // As createDirectoryVolume: a directory already there without a record is someone else's, never adopted.
    const target = await resolveInsideRoot([root], posix.join(root, record.subPath));
    if (target.exists) throw new PluginError('Backend', `"${target.path}" already exists and carries no pv-controller record; refusing to adopt it`, false);
    await writeRecord(root, record).catch((err: unknown) => {
      if (!(err instanceof RecordExists)) throw err;
    });
    return root;
  }

  /** The root a volume's record is in, if it has one. */
  async existingRoot(backingName: string): Promise<string | undefined> {
    const [existing] = await findRecords([...this.roots], backingName);
    return existing?.root;
  }
}

async function realRoot(root: string): Promise<string> {
  try {
    return await fs.realpath(root);
  } catch (err) {
    throw new PluginError('Backend', `host-path root "${root}" is not available: ${(err as Error).message}`, true, { cause: err });
  }
}

const maxOf = (a: bigint, b: bigint): bigint => (a > b ? a : b);
