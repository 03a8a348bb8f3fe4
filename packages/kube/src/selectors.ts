/**
 * Label selectors in object form and their requirements, with apimachinery's validation and
 * messages (k8s.io/apimachinery/pkg/labels, metav1.LabelSelectorAsSelector): what the controller
 * matches claims' selectors with. The string form, which only the API server parses, is
 * apiserver/label-selector-parser.ts. An invalid requirement throws BadRequestError.
 */
import { BadRequestError } from './errors.js';
import { goQuote, isQualifiedName, isValidLabelValue } from './name-validation.js';
import type { LabelSelector } from './types.js';

export type LabelOperator =
  | 'In'
  | 'NotIn'
  | 'Equals'
  | 'NotEquals'
  | 'Exists'
  | 'DoesNotExist'
  | 'GreaterThan'
  | 'LessThan';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** Sorted and de-duplicated for In/NotIn (as upstream's string sets); one value for the rest. */
  values: string[];
}

// ---------------------------------------------------------------------------- requirement checks

/** Go's `%#v` of a []string, as field.Invalid prints it. */
function goStringSlice(values: string[]): string {
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

function requirementErrors(key: string, op: LabelOperator, values: string[], path: string): string[] {
  const at = (child: string): string => (path ? `${path}.${child}` : child);
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) errs.push(`${at('key')}: Invalid value: ${goQuote(key)}: ${keyErrs.join('; ')}`);
  const invalidValues = (detail: string): string =>
    `${at('values')}: Invalid value: ${goStringSlice(values)}: ${detail}`;
  if ((op === 'In' || op === 'NotIn') && values.length === 0) {
    errs.push(invalidValues("for 'in', 'notin' operators, values set can't be empty"));
  } else if ((op === 'Equals' || op === 'NotEquals') && values.length !== 1) {
    errs.push(invalidValues('exact-match compatibility requires one single value'));
  } else if ((op === 'Exists' || op === 'DoesNotExist') && values.length !== 0) {
    errs.push(invalidValues('values set must be empty for exists and does not exist'));
  } else if (op === 'GreaterThan' || op === 'LessThan') {
    if (values.length !== 1) errs.push(invalidValues("for 'Gt', 'Lt' operators, exactly one value is required"));
    values.forEach((v, i) => {
      if (!/^[+-]?[0-9]+$/.test(v)) {
        errs.push(`${at('values')}[${i}]: Invalid value: ${goQuote(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
      }
    });
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length) {
      errs.push(`${at('values')}[${i}][${key}]: Invalid value: ${goQuote(v)}: ${valueErrs.join('; ')}`);
    }
  });
  return errs;
}

/** A requirement checked as labels.NewRequirement checks it; a problem is a 400 naming it. */
export function newRequirement(key: string, operator: LabelOperator, values: string[], path = ''): LabelRequirement {
  const errs = requirementErrors(key, operator, values, path);
  if (errs.length === 1) throw new BadRequestError(errs[0]);
  if (errs.length > 1) throw new BadRequestError(`[${errs.join(', ')}]`);
  return { key, operator, values };
}

function matchesOne(req: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, req.key);
  const value = has ? labels[req.key] : undefined;
  switch (req.operator) {
    case 'In':
    case 'Equals':
      return has && req.values.includes(value as string);
    case 'NotIn':
    case 'NotEquals':
      return !has || !req.values.includes(value as string);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'GreaterThan':
    case 'LessThan': {
      if (!has || !/^[+-]?[0-9]+$/.test(value as string) || req.values.length !== 1) return false;
      const have = BigInt(value as string);
      const want = BigInt(req.values[0]);
      return req.operator === 'GreaterThan' ? have > want : have < want;
    }
  }
}

/** AND of all requirements; no requirements match everything. */
export function matchesLabelRequirements(reqs: LabelRequirement[], labels?: Record<string, string>): boolean {
  const set = labels ?? {};
  return reqs.every((r) => matchesOne(r, set));
}

// ---------------------------------------------------------------------------- object form

const OBJECT_OPERATORS: Record<string, LabelOperator> = {
  In: 'In',
  NotIn: 'NotIn',
  Exists: 'Exists',
  DoesNotExist: 'DoesNotExist',
};

/** metav1.LabelSelectorAsSelector: matchLabels then matchExpressions, each validated. */
export function labelSelectorAsRequirements(sel: LabelSelector): LabelRequirement[] {
  const reqs: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(sel.matchLabels ?? {})) {
    reqs.push(newRequirement(key, 'Equals', [value]));
  }
  for (const expr of sel.matchExpressions ?? []) {
    const op = Object.hasOwn(OBJECT_OPERATORS, expr.operator) ? OBJECT_OPERATORS[expr.operator] : undefined;
    if (!op) throw new BadRequestError(`${goQuote(String(expr.operator))} is not a valid label selector operator`);
    reqs.push(newRequirement(expr.key, op, [...(expr.values ?? [])]));
  }
  return reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Whether a claim's `spec.selector` admits these labels. An undefined selector and an empty `{}`
 * selector both match everything (the PV controller only filters when a selector is set).
 */
export function labelSelectorMatches(sel: LabelSelector | undefined, labels?: Record<string, string>): boolean {
  if (sel === undefined || sel === null) return true;
  return matchesLabelRequirements(labelSelectorAsRequirements(sel), labels);
}
