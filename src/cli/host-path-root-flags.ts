/**
 * The per-root flags of host-path roots: `--host-path-root-capacity DIR=QUANTITY` (what the root's
 * volumes may be given together) and `--host-path-root-weight DIR=N` (its share under a class's
 * `placement: weighted`). Each DIR must be one of the `--host-path-root` values; a root named by
 * neither keeps today's behaviour (its filesystem decides, weight 1). Parsing only.
 */
import { posix } from 'node:path';
import { Option } from 'commander';
import { quantityToBytes } from '@pv-controller/kube/quantity.js';
import type { RootLimits } from '../plugins/host-path/root-placer.js';
import { MAX_ROOT_WEIGHT } from '../plugins/host-path/placement.js';
import { collect, FlagError } from './flags.js';

export interface HostPathRootFlags {
  hostPathRoot?: string[];
  hostPathRootCapacity?: string[];
  hostPathRootWeight?: string[];
}

export function hostPathRootFlags(): Option[] {
  return [
    new Option('--host-path-root-capacity <dir=quantity>', 'most the volumes of one --host-path-root may be given together, e.g. /mnt/disk1=500Gi (repeatable; default: its filesystem)').argParser(collect),
    new Option('--host-path-root-weight <dir=n>', `share of one --host-path-root under placement: weighted, a whole number 0–${MAX_ROOT_WEIGHT} (repeatable; default 1)`).argParser(collect),
  ];
}

const normalise = (dir: string): string => posix.normalize(dir).replace(/(.)\/+$/, '$1');

/** `DIR=VALUE` split at its last `=` (a directory may hold one, a quantity or weight cannot), DIR checked against the roots. */
function splitRootValue(flag: string, text: string, roots: readonly string[]): [string, string] {
  const at = text.lastIndexOf('=');
  if (at <= 0 || at === text.length - 1) throw new FlagError(`${flag} must be DIR=VALUE, got "${text}"`);
  const dir = normalise(text.slice(0, at));
  if (!roots.includes(dir)) throw new FlagError(`${flag} names "${dir}", which is not a --host-path-root (${roots.join(', ') || 'none given'})`);
  return [dir, text.slice(at + 1)];
}

/** The per-root limits the flags give, keyed by normalised root; throws a FlagError naming a bad flag. */
export function rootLimitsFromFlags(flags: HostPathRootFlags): Record<string, RootLimits> {
  const roots = (flags.hostPathRoot ?? []).map(normalise);
  const limits: Record<string, RootLimits> = {};
  const entry = (dir: string): RootLimits => (limits[dir] ??= {});
  for (const text of flags.hostPathRootCapacity ?? []) {
    const [dir, value] = splitRootValue('--host-path-root-capacity', text, roots);
    if (entry(dir).capacityBytes !== undefined) throw new FlagError(`--host-path-root-capacity names "${dir}" twice`);
    let bytes: bigint;
    try {
      bytes = quantityToBytes(value);
    } catch {
      throw new FlagError(`--host-path-root-capacity: "${value}" is not a quantity (e.g. 500Gi)`);
    }
    if (bytes <= 0n) throw new FlagError(`--host-path-root-capacity for "${dir}" must be positive, got "${value}"`);
    entry(dir).capacityBytes = bytes;
  }
  for (const text of flags.hostPathRootWeight ?? []) {
    const [dir, value] = splitRootValue('--host-path-root-weight', text, roots);
    if (entry(dir).weight !== undefined) throw new FlagError(`--host-path-root-weight names "${dir}" twice`);
    if (!/^[0-9]{1,4}$/.test(value) || Number(value) > MAX_ROOT_WEIGHT) throw new FlagError(`--host-path-root-weight for "${dir}" must be a whole number 0–${MAX_ROOT_WEIGHT}, got "${value}"`);
    entry(dir).weight = Number(value);
  }
  return limits;
}
