/**
 * StorageClass parameters of `kubernetes.io/aws-ebs`, as the in-tree plugin read them (keys are
 * case-insensitive): type, zone, zones, iopsPerGB, encrypted, kmsKeyId, fsType.
 */
import { parseGoBool } from '../cloud-common/tags.js';
import {
  type CheckedParameters,
  checkValue,
  checkZoneValues,
  nonEmpty,
  oneOf,
  readParameters,
  spellingOf,
  valueOf,
  zoneParameters,
} from '../cloud-common/parameters.js';

export const AWS_EBS_PLUGIN_NAME = 'kubernetes.io/aws-ebs';

export const EBS_VOLUME_TYPES = ['gp2', 'gp3', 'io1', 'io2', 'sc1', 'st1', 'standard'] as const;
export const DEFAULT_EBS_VOLUME_TYPE = 'gp2';
/** Volume types whose IOPS are provisioned (iopsPerGB applies). */
const PROVISIONED_IOPS_TYPES = ['io1', 'io2'];
/** Bounds of total provisioned IOPS; the product of size and iopsPerGB is clamped to them. */
export const MIN_TOTAL_IOPS = 100;
export const MAX_TOTAL_IOPS = 64_000;

const KNOWN = ['type', 'zone', 'zones', 'iopspergb', 'encrypted', 'kmskeyid', 'fstype'] as const;

export interface EbsParameters {
  type: string;
  zone?: string;
  zones?: string[];
  iopsPerGB?: number;
  encrypted: boolean;
  kmsKeyId?: string;
  fsType?: string;
}

function checkIopsPerGB(value: string): string | undefined {
  return /^[0-9]+$/.test(value) && Number(value) >= 1 ? undefined : `"${value}" is not a positive integer`;
}

/** Reads the parameters; `problems` is empty when they are acceptable. */
export function parseEbsParameters(parameters: Record<string, string>): CheckedParameters<EbsParameters> {
  const read = readParameters(parameters, KNOWN, AWS_EBS_PLUGIN_NAME);
  checkValue(read, 'type', oneOf(EBS_VOLUME_TYPES));
  checkZoneValues(read);
  checkValue(read, 'iopspergb', checkIopsPerGB);
  checkValue(read, 'encrypted', (v) => (parseGoBool(v) === undefined ? `"${v}" is not true or false` : undefined));
  checkValue(read, 'kmskeyid', nonEmpty);
  checkValue(read, 'fstype', nonEmpty);
  const type = valueOf(read, 'type') ?? DEFAULT_EBS_VOLUME_TYPE;
  const encrypted = parseGoBool(valueOf(read, 'encrypted') ?? 'false') ?? false;
  const parsed: EbsParameters = { type, encrypted, ...zoneParameters(read) };
  const iopsPerGB = valueOf(read, 'iopspergb');
  if (iopsPerGB !== undefined && !PROVISIONED_IOPS_TYPES.includes(type)) {
    read.problems.push({
      parameter: spellingOf(read, 'iopspergb'),
      message: `iopsPerGB applies only to volume types ${PROVISIONED_IOPS_TYPES.join(', ')}, not ${type}`,
    });
  }
  const kmsKeyId = valueOf(read, 'kmskeyid');
  if (kmsKeyId !== undefined && !encrypted) {
    read.problems.push({ parameter: spellingOf(read, 'kmskeyid'), message: 'kmsKeyId requires encrypted: "true"' });
  }
  if (iopsPerGB !== undefined) parsed.iopsPerGB = Number(iopsPerGB);
  if (kmsKeyId !== undefined) parsed.kmsKeyId = kmsKeyId;
  const fsType = valueOf(read, 'fstype');
  if (fsType !== undefined) parsed.fsType = fsType;
  return { parsed, problems: read.problems };
}

/**
 * Total IOPS for a provisioned-IOPS volume type: size × iopsPerGB clamped to the service's bounds
 * (no iopsPerGB gives the minimum, as upstream); undefined for the other types.
 */
export function totalIops(type: string, sizeGiB: number, iopsPerGB: number | undefined): number | undefined {
  if (!PROVISIONED_IOPS_TYPES.includes(type)) return undefined;
  return Math.min(MAX_TOTAL_IOPS, Math.max(MIN_TOTAL_IOPS, sizeGiB * (iopsPerGB ?? 0)));
}
