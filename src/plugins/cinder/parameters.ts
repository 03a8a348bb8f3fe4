/**
 * StorageClass parameters of `kubernetes.io/cinder`, as the in-tree plugin read them (keys are
 * case-insensitive): type (a Cinder volume type), availability (an availability zone), fsType.
 */
import { checkValue, nonEmpty, readParameters } from '../cloud-common/parameters.js';
import type { ParameterProblem } from '../plugin.js';

export const CINDER_PLUGIN_NAME = 'kubernetes.io/cinder';

const KNOWN = ['type', 'availability', 'fstype'] as const;

export interface CinderParameters {
  volumeType?: string;
  availability?: string;
  fsType?: string;
}

export function parseCinderParameters(parameters: Record<string, string>): {
  parsed: CinderParameters;
  problems: ParameterProblem[];
} {
  const read = readParameters(parameters, KNOWN, CINDER_PLUGIN_NAME);
  for (const key of KNOWN) checkValue(read, key, nonEmpty);
  const parsed: CinderParameters = {};
  const type = read.values.get('type')?.value;
  if (type !== undefined) parsed.volumeType = type;
  const availability = read.values.get('availability')?.value;
  if (availability !== undefined) parsed.availability = availability.trim();
  const fsType = read.values.get('fstype')?.value;
  if (fsType !== undefined) parsed.fsType = fsType;
  return { parsed, problems: read.problems };
}
