/**
 * StorageClass parameters of the in-tree cloud plugins: keys are case-insensitive, unknown keys
 * are refused with upstream's message, and each plugin checks its own values.
 */
import type { ParameterProblem } from '../api/errors.js';
import { parseZoneList } from './zones.js';

/** Parameters keyed by lower-cased name, plus the problems found while reading them. */
export interface ParsedParameters {
  values: Map<string, { key: string; value: string }>;
  problems: ParameterProblem[];
}

/** A cloud's own reading of a class's parameters: the values it will use, and every problem. */
export interface CheckedParameters<P> {
  parsed: P;
  problems: ParameterProblem[];
}

/** The value given for `lower`, whatever case the class spelt its key in. */
export function valueOf(parsed: ParsedParameters, lower: string): string | undefined {
  return parsed.values.get(lower)?.value;
}

/** The key as the class spelt it, for messages; `lower` when the class did not give it. */
export function spellingOf(parsed: ParsedParameters, lower: string): string {
  return parsed.values.get(lower)?.key ?? lower;
}

/**
 * Lower-cases keys and refuses those not in `known` (lower-case), naming the key as given.
 * A key given twice in different cases is refused too.
 */
export function readParameters(
  parameters: Record<string, string>,
  known: readonly string[],
  pluginName: string,
): ParsedParameters {
  const values = new Map<string, { key: string; value: string }>();
  const problems: ParameterProblem[] = [];
  for (const [key, value] of Object.entries(parameters)) {
    const lower = key.toLowerCase();
    if (!known.includes(lower)) {
      problems.push({ parameter: key, message: `invalid option "${key}" for volume plugin ${pluginName}` });
    } else if (values.has(lower)) {
      problems.push({ parameter: key, message: `parameter "${key}" is given more than once` });
    } else {
      values.set(lower, { key, value });
    }
  }
  return { values, problems };
}

/** Adds a problem for `lower` (named as the class spelt it) when `check` returns a message. */
export function checkValue(
  parsed: ParsedParameters,
  lower: string,
  check: (value: string) => string | undefined,
): void {
  const entry = parsed.values.get(lower);
  if (entry === undefined) return;
  const message = check(entry.value);
  if (message !== undefined) parsed.problems.push({ parameter: entry.key, message });
}

/** Message when a value is not one of `allowed`. */
export function oneOf(allowed: readonly string[]): (value: string) => string | undefined {
  return (value) =>
    allowed.includes(value) ? undefined : `"${value}" is not one of ${allowed.join(', ')}`;
}

export function nonEmpty(value: string): string | undefined {
  return value.trim() === '' ? 'must not be empty' : undefined;
}

/** Value checks of the `zone` and `zones` parameters (a zone name; zone names separated by commas). */
export function checkZoneValues(parsed: ParsedParameters): void {
  checkValue(parsed, 'zone', nonEmpty);
  checkValue(parsed, 'zones', (v) => (parseZoneList(v) ? undefined : 'must be zone names separated by commas'));
}

/** The zone parameters a class gave, as `zoneParameters` reads them. */
export interface ZoneParameters {
  zone?: string;
  zones?: string[];
}

/** The `zone` and `zones` a class names (refusing both at once, as upstream does), trimmed. */
export function zoneParameters(parsed: ParsedParameters): ZoneParameters {
  const zone = valueOf(parsed, 'zone');
  const list = valueOf(parsed, 'zones');
  if (zone !== undefined && list !== undefined) {
    parsed.problems.push({
      parameter: spellingOf(parsed, 'zones'),
      message: 'both zone and zones StorageClass parameters must not be used at the same time',
    });
  }
  const zones = list === undefined ? undefined : parseZoneList(list);
  return { ...(zone === undefined ? {} : { zone: zone.trim() }), ...(zones === undefined ? {} : { zones }) };
}
