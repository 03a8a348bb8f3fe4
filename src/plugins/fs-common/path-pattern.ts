/**
 * `pathPattern` of the directory plugins (nfs-subdir, host-path), as nfs-subdir-external-provisioner spells it: `${.PVC.namespace}`, `${.PVC.name}`,
 * `${.PVC.labels.<key>}`, `${.PVC.annotations.<key>}` between literal path text. The rendered
 * pattern is the *parent* of the volume directory, which is always `<rendered>/<backingName>`:
 * two claims rendering the same pattern never share (or delete) one directory.
 *
 * Containment, because labels and annotations are written by the claim's author:
 * - the pattern itself must be relative, with no empty, `.` or `..` components, and only the
 *   variables above (checked by validateParameters, before anything is created);
 * - every substituted value must be one non-empty path component: no `/`, no control character
 *   (NUL, newline, escape, DEL...), not `.`/`..`.
 *   A value like `../other-ns/x` or `/etc` is rejected, never cleaned up or silently prefixed, so
 *   a value can only ever fill the one component the administrator's pattern gave it;
 * - the rendered path is checked again component by component (a value `.` next to a literal
 *   `.` must not become `..`), and may not start with the record directory.
 * The filesystem walk (no symlinks followed) is safe-path's job when the directory is created.
 */
import type { ClaimInfo } from '../api/core.js';
import { PluginError } from '../api/errors.js';
import { RECORD_DIR } from '../fs-common/metadata-record.js';
import { isReservedTopLevel } from '../fs-common/snapshot-area.js';

const TOKEN = /\$\{([^}]*)\}/g;
// eslint-disable-next-line no-control-regex -- control characters are exactly what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;
const MAX_COMPONENT = 255;

type Variable =
  | { kind: 'namespace' }
  | { kind: 'name' }
  | { kind: 'labels'; key: string }
  | { kind: 'annotations'; key: string };

function parseVariable(expr: string): Variable | undefined {
  const text = expr.trim();
  if (text === '.PVC.namespace') return { kind: 'namespace' };
  if (text === '.PVC.name') return { kind: 'name' };
  for (const kind of ['labels', 'annotations'] as const) {
    const prefix = `.PVC.${kind}.`;
    if (text.startsWith(prefix) && text.length > prefix.length) return { kind, key: text.slice(prefix.length) };
  }
  return undefined;
}

function componentProblem(component: string): string | undefined {
  if (component === '') return 'an empty path component';
  if (component === '.' || component === '..') return `a "${component}" component`;
  if (component.length > MAX_COMPONENT) return 'a path component longer than 255 characters';
  return undefined;
}

/** Problems with the pattern itself (not with any claim's values); [] when acceptable. */
export function patternProblems(pattern: string): string[] {
  if (pattern.trim() === '') return ['pathPattern is empty'];
  if (pattern.startsWith('/')) return ['pathPattern must be relative to the share, not absolute'];
  if (CONTROL.test(pattern)) return ['pathPattern contains a control character'];
  const problems: string[] = [];
  for (const match of pattern.matchAll(TOKEN)) {
    if (!parseVariable(match[1])) {
      problems.push(`unknown variable "${match[0]}" (use \${.PVC.namespace}, \${.PVC.name}, \${.PVC.labels.<key>} or \${.PVC.annotations.<key>})`);
    }
  }
  // Literal structure: every variable stands for exactly one non-empty component text.
  const skeleton = pattern.replace(TOKEN, 'v');
  if (skeleton.includes('${')) problems.push('pathPattern has an unterminated "${"');
  for (const component of skeleton.split('/')) {
    const problem = componentProblem(component);
    if (problem) problems.push(`pathPattern has ${problem}`);
  }
  if (isReservedTopLevel(skeleton.split('/')[0])) problems.push(`pathPattern may not start with "${RECORD_DIR}" (reserved for records and snapshots)`);
  return problems;
}

/** Own members only: `${.PVC.labels.__proto__}` or `.constructor` name no label. */
function ownValue(map: Record<string, string>, key: string): string | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

function valueOf(variable: Variable, claim: ClaimInfo): string | undefined {
  switch (variable.kind) {
    case 'namespace':
      return claim.namespace;
    case 'name':
      return claim.name;
    case 'labels':
      return ownValue(claim.labels, variable.key);
    case 'annotations':
      return ownValue(claim.annotations, variable.key);
  }
}

function invalid(message: string): PluginError {
  return new PluginError('InvalidParameter', message, false);
}

/** Renders the pattern for a claim into a relative directory path, or throws InvalidParameter. */
export function renderPattern(pattern: string, claim: ClaimInfo): string {
  const problems = patternProblems(pattern);
  if (problems.length > 0) throw invalid(`pathPattern "${pattern}": ${problems.join('; ')}`);
  const rendered = pattern.replace(TOKEN, (token: string, expr: string) => {
    const variable = parseVariable(expr)!;
    const value = valueOf(variable, claim);
    if (value === undefined || value === '') {
      throw invalid(`pathPattern "${pattern}": the claim has no value for ${token}`);
    }
    if (value.includes('/') || CONTROL.test(value) || value === '.' || value === '..') {
      throw invalid(
        `pathPattern "${pattern}": the claim's value ${JSON.stringify(value)} for ${token} is not a single path component`,
      );
    }
    return value;
  });
  const components = rendered.split('/');
  for (const component of components) {
    const problem = componentProblem(component);
    if (problem) throw invalid(`pathPattern "${pattern}" renders to "${rendered}", which has ${problem}`);
  }
  if (isReservedTopLevel(components[0])) throw invalid(`pathPattern "${pattern}" renders into "${components[0]}", which is reserved for pv-controller's records and snapshots`);
  return rendered;
}
