/**
 * field.Error builders (k8s.io/apimachinery/pkg/util/validation/field) producing the StatusCauses
 * kube-apiserver returns: `reason` is the cause type, `message` the error body, `field` the path.
 */
import { goQuote } from '@pv-controller/kube/name-validation.js';
import type { StatusCause } from '@pv-controller/kube/types.js';

/** How Go's ErrorBody prints a bad value: %q for strings, %v for scalars, JSON for the rest. */
function formatBadValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

const withDetail = (body: string, detail?: string): string => (detail ? `${body}: ${detail}` : body);

export function required(field: string, detail?: string): StatusCause {
  return { reason: 'FieldValueRequired', message: withDetail('Required value', detail), field };
}

export function invalid(field: string, value: unknown, detail?: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: withDetail(`Invalid value: ${formatBadValue(value)}`, detail), field };
}

/** An Invalid cause whose bad value the caller has already rendered (a value several causes print). */
export function invalidRendered(field: string, renderedValue: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${renderedValue}: ${detail}`, field };
}

export function notSupported(field: string, value: unknown, supported: readonly string[]): StatusCause {
  const list = supported.map((s) => JSON.stringify(s)).join(', ');
  const detail = supported.length ? `supported values: ${list}` : undefined;
  return { reason: 'FieldValueNotSupported', message: withDetail(`Unsupported value: ${formatBadValue(value)}`, detail), field };
}

export function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: withDetail('Forbidden', detail), field };
}

export function duplicate(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${formatBadValue(value)}`, field };
}

export function tooLong(field: string, maxLength: number): StatusCause {
  return { reason: 'FieldValueTooLong', message: `Too long: may not be more than ${maxLength} bytes`, field };
}

/** `field is immutable`, as ValidateImmutableField reports it. */
export function immutable(field: string, value: unknown): StatusCause {
  return invalid(field, value, 'field is immutable');
}

/** One Invalid cause per message of a name-validation function, as upstream loops over them. */
export function invalidEach(field: string, value: unknown, messages: string[]): StatusCause[] {
  return messages.map((m) => invalid(field, value, m));
}

/**
 * Appends each list's causes to `causes` one at a time and returns `causes`. A spread push
 * (`push(...more)`) passes every element as an argument on the stack, which gives out near
 * 100,000 of them: a request with that many bad list items ended in "Maximum call stack size
 * exceeded" (a 500 where kube-apiserver answers 422).
 */
export function appendCauses(causes: StatusCause[], ...lists: ReadonlyArray<readonly StatusCause[]>): StatusCause[] {
  for (const more of lists) for (const cause of more) causes.push(cause);
  return causes;
}
