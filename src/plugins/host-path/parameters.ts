/** The StorageClass parameters the host-path plugin understands, and what each may be. */
export const PATH_PATTERN_PARAMETER = 'pathPattern';
/** `onDelete`: delete (the default) or archive (plain directories only: fs-common/archive.ts). */
export const HOST_PATH_PARAMETER_ON_DELETE = 'onDelete';
const ON_DELETE = ['delete', 'archive'];
import type { ParameterProblem } from '../api/errors.js';
import { isConfiguredRoot } from './host-path-helpers.js';
import { SIZING_PARAMETER, SIZINGS } from './image-volume.js';
import { PLACEMENT_PARAMETER, placementProblem } from './placement.js';
import { OWNERSHIP_PARAMETERS, ownershipProblem } from './ownership.js';
import { patternProblems, renderPattern } from '../fs-common/path-pattern.js';
import { labelKeyProblem, NODE_AFFINITY_LABEL_PARAMETER } from './node-pin.js';
import type { DeleteRequest, ProvisionRequest } from '../api/core.js';
import { readRecord } from '../fs-common/metadata-record.js';
import { HOST_PATH_PARAMETER_ROOT } from './root-placer.js';

/** Every problem of a class's parameters for the host-path provisioner `name` with these roots. */
export function hostPathParameterProblems(name: string, roots: readonly string[], parameters: Record<string, string>): ParameterProblem[] {
  const problems: ParameterProblem[] = [];
  for (const [key, value] of Object.entries(parameters)) {
    const message = problemOf(name, roots, key, value);
    if (message !== undefined) problems.push({ parameter: key, message });
  }
  if (parameters[PATH_PATTERN_PARAMETER] !== undefined && parameters[SIZING_PARAMETER] === 'image') {
    problems.push({ parameter: PATH_PATTERN_PARAMETER, message: 'applies to plain directories only (sizing: none); a sized volume lives at <root>/<name>' });
  }
  if (parameters[HOST_PATH_PARAMETER_ON_DELETE] === 'archive' && parameters[SIZING_PARAMETER] === 'image') {
    problems.push({ parameter: HOST_PATH_PARAMETER_ON_DELETE, message: 'archive is for plain directories (sizing: none); a sized volume is deleted' });
  }
  return problems;
}

function problemOf(name: string, roots: readonly string[], key: string, value: string): string | undefined {
  switch (key) {
    case SIZING_PARAMETER:
      return (SIZINGS as readonly string[]).includes(value) ? undefined : `must be one of ${SIZINGS.join(', ')}, got "${value}"`;
    case HOST_PATH_PARAMETER_ROOT:
      return isConfiguredRoot(roots, value) ? undefined : `"${value}" is not a configured root (${roots.join(', ')})`;
    case HOST_PATH_PARAMETER_ON_DELETE:
      return ON_DELETE.includes(value) ? undefined : `must be one of ${ON_DELETE.join(', ')}, got "${value}"`;
    case PLACEMENT_PARAMETER:
      return placementProblem(value);
    case NODE_AFFINITY_LABEL_PARAMETER:
      return labelKeyProblem(value);
    case PATH_PATTERN_PARAMETER: {
      const problems = patternProblems(value);
      return problems.length > 0 ? problems.join('; ') : undefined;
    }
    default:
      if (OWNERSHIP_PARAMETERS.includes(key)) return ownershipProblem(key, value);
      return `unknown parameter "${key}" for ${name}`;
  }
}

/**
 * Where a new volume goes under its root: `<backingName>`, or with a `pathPattern`
 * `<rendered pattern>/<backingName>` — the backing name (one per PV) keeps two claims that render
 * the same pattern out of each other's directory. Throws InvalidParameter for a claim whose values
 * cannot fill the pattern (fs-common/path-pattern.ts).
 */
export function subPathFor(req: ProvisionRequest): string {
  const pattern = req.parameters[PATH_PATTERN_PARAMETER];
  return pattern === undefined ? req.backingName : `${renderPattern(pattern, req.claim)}/${req.backingName}`;
}

/** archive when the class asks for it and the volume is a plain directory (a sized one's image is deleted). */
export async function deleteModeFor(root: string, req: DeleteRequest): Promise<'delete' | 'archive'> {
  if (req.parameters?.[HOST_PATH_PARAMETER_ON_DELETE] !== 'archive') return 'delete';
  return (await readRecord(root, req.backingName))?.sizing === 'image' ? 'delete' : 'archive';
}
