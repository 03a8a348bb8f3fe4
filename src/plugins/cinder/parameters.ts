/**
 * StorageClass parameters of `kubernetes.io/cinder`, as the in-tree plugin read them (keys are
 * case-insensitive): type (a Cinder volume type), availability (an availability zone), fsType.
 */
import { type CheckedParameters, checkValue, nonEmpty, readParameters, valueOf } from '../cloud-common/parameters.js';

export const CINDER_PLUGIN_NAME = 'kubernetes.io/cinder';

const KNOWN = ['type', 'availability', 'fstype'] as const;

export interface CinderParameters {
  volumeType?: string;
  availability?: string;
  fsType?: string;
}

export function parseCinderParameters(parameters: Record<string, string>): CheckedParameters<CinderParameters> {
  const read = readParameters(parameters, KNOWN, CINDER_PLUGIN_NAME);
  for (const key of KNOWN) checkValue(read, key, nonEmpty);
  const parsed: CinderParameters = {};
  const type = valueOf(read, 'type');
  if (type !== undefined) parsed.volumeType = type;
  const availability = valueOf(read, 'availability');
  if (availability !== undefined) parsed.availability = availability.trim();
  const fsType = valueOf(read, 'fstype');
  if (fsType !== undefined) parsed.fsType = fsType;
  return { parsed, problems: read.problems };
}
