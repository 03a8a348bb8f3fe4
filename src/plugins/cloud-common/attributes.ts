/**
 * VolumeAttributesClass parameters of the cloud plugins (KEP-3751), read with the same rules as
 * StorageClass parameters (keys case-insensitive, unknown keys refused): the disk type, the
 * provisioned IOPS and the provisioned throughput in MiB/s, each plugin taking the ones its
 * cloud can change on a live disk.
 */
import { type CheckedParameters, checkValue, nonEmpty, oneOf, readParameters, valueOf } from './parameters.js';

export interface VolumeAttributes {
  type?: string;
  iops?: number;
  /** MiB/s. */
  throughput?: number;
}

/** Which attributes a cloud takes: the disk types it may change to ('any': the cloud defines them), and whether IOPS and throughput. */
export interface AttributeSupport {
  types?: readonly string[] | 'any';
  iops?: boolean;
  throughput?: boolean;
}

function positiveInteger(value: string): string | undefined {
  return /^[0-9]+$/.test(value) && Number(value) >= 1 && Number.isSafeInteger(Number(value)) ? undefined : `"${value}" is not a positive integer`;
}

export function parseVolumeAttributes(
  attributes: Record<string, string>,
  support: AttributeSupport,
  pluginName: string,
): CheckedParameters<VolumeAttributes> {
  const known = [support.types ? 'type' : '', support.iops ? 'iops' : '', support.throughput ? 'throughput' : ''].filter(Boolean);
  const read = readParameters(attributes, known, pluginName);
  if (Array.isArray(support.types)) checkValue(read, 'type', oneOf(support.types));
  else checkValue(read, 'type', nonEmpty);
  checkValue(read, 'iops', positiveInteger);
  checkValue(read, 'throughput', positiveInteger);
  const parsed: VolumeAttributes = {};
  const type = valueOf(read, 'type');
  const iops = valueOf(read, 'iops');
  const throughput = valueOf(read, 'throughput');
  if (type !== undefined) parsed.type = type;
  if (iops !== undefined) parsed.iops = Number(iops);
  if (throughput !== undefined) parsed.throughput = Number(throughput);
  return { parsed, problems: read.problems };
}
