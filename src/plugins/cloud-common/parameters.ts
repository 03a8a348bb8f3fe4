/**
 * StorageClass parameters of the in-tree cloud plugins: keys are case-insensitive, unknown keys
 * are refused with upstream's message, and each plugin checks its own values.
 */
import type { ParameterProblem } from '../plugin.js';

/** Parameters keyed by lower-cased name, plus the problems found while reading them. */
export interface ParsedParameters {
  values: Map<string, { key: string; value: string }>;
  problems: ParameterProblem[];
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
