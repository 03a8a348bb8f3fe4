/**
 * Label selectors (string and object form), with apimachinery's grammar, validation and messages
 * (k8s.io/apimachinery/pkg/labels, metav1.LabelSelectorAsSelector); the lexer is in
 * label-selector-lexer.ts. Field selectors live in field-selectors.ts and are re-exported here.
 * Parse failures throw BadRequestError, as kube-apiserver answers a bad `?labelSelector=`.
 */
import { BadRequestError } from './errors.js';
import { lex, type Token } from './label-selector-lexer.js';
import { goQuote, isQualifiedName, isValidLabelValue } from './name-validation.js';
import type { LabelSelector } from './types.js';

type LabelOperator =
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

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

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

function newRequirement(key: string, operator: LabelOperator, values: string[], path = ''): LabelRequirement {
  const errs = requirementErrors(key, operator, values, path);
  if (errs.length === 1) throw new BadRequestError(errs[0]);
  if (errs.length > 1) throw new BadRequestError(`[${errs.join(', ')}]`);
  return { key, operator, values };
}

// ---------------------------------------------------------------------------- parser

class LabelSelectorParser {
  private position = 0;
  constructor(private readonly tokens: Token[]) {}

  /** In value context the words `in`/`notin` are plain identifiers. */
  private peek(asValue = true): Token {
    const t = this.tokens[this.position];
    return asValue && (t.kind === 'in' || t.kind === 'notin') ? { kind: 'id', text: t.text } : t;
  }

  private next(asValue = true): Token {
    const t = this.peek(asValue);
    this.position++;
    return t;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === 'end') return reqs;
      if (t.kind !== 'id' && t.kind !== '!') {
        throw new BadRequestError(`found '${t.text}', expected: !, identifier, or 'end of string'`);
      }
      reqs.push(this.requirement());
      const sep = this.next();
      if (sep.kind === 'end') return reqs;
      if (sep.kind !== ',') throw new BadRequestError(`found '${sep.text}', expected: ',' or 'end of string'`);
      const after = this.peek();
      if (after.kind !== 'id' && after.kind !== '!') {
        throw new BadRequestError(`found '${after.text}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): LabelRequirement {
    try {
      return this.requirementUnwrapped();
    } catch (err) {
      if (err instanceof BadRequestError) throw new BadRequestError(`unable to parse requirement: ${err.message}`);
      throw err;
    }
  }

  private requirementUnwrapped(): LabelRequirement {
    let t = this.next();
    let negated = false;
    if (t.kind === '!') {
      negated = true;
      t = this.next();
    }
    if (t.kind !== 'id') throw new BadRequestError(`found '${t.text}', expected: identifier`);
    const key = t.text;
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length) throw new BadRequestError(`<nil>: Invalid value: ${goQuote(key)}: ${keyErrs.join('; ')}`);
    const follow = this.peek().kind;
    // "!key" is complete by itself; whatever follows must be ',' or the end (checked by parse()).
    if (negated) return newRequirement(key, 'DoesNotExist', []);
    if (follow === 'end' || follow === ',') return newRequirement(key, 'Exists', []);
    const op = this.operator();
    const values = op === 'In' || op === 'NotIn' ? this.valueSet() : [this.exactValue()];
    return newRequirement(key, op, values);
  }

  private operator(): LabelOperator {
    const t = this.next(false);
    switch (t.kind) {
      case 'in': return 'In';
      case 'notin': return 'NotIn';
      case '=': case '==': return 'Equals';
      case '!=': return 'NotEquals';
      case '>': return 'GreaterThan';
      case '<': return 'LessThan';
      default: throw new BadRequestError(`found '${t.text}', expected: ${BINARY_OPERATORS}`);
    }
  }

  private valueSet(): string[] {
    const open = this.next();
    if (open.kind !== '(') throw new BadRequestError(`found '${open.text}' expected: '('`);
    const first = this.peek();
    if (first.kind === ')') {
      this.next();
      return [''];
    }
    if (first.kind !== 'id' && first.kind !== ',') {
      throw new BadRequestError(`found '${first.text}', expected: ',', ')' or identifier`);
    }
    const values = this.identifierList();
    this.next(); // the ')' identifierList stopped at
    return [...values].sort();
  }

  /** A possibly empty, comma separated list of possibly empty identifiers, up to ')'. */
  private identifierList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const t = this.next();
      if (t.kind === 'id') {
        values.add(t.text);
        const after = this.peek();
        if (after.kind === ')') return values;
        if (after.kind !== ',') throw new BadRequestError(`found '${after.text}', expected: ',' or ')'`);
      } else if (t.kind === ',') {
        if (values.size === 0) values.add('');
        const after = this.peek().kind;
        if (after === ')') {
          values.add('');
          return values;
        }
        if (after === ',') values.add('');
      } else {
        throw new BadRequestError(`found '${t.text}', expected: ',', or identifier`);
      }
    }
  }

  private exactValue(): string {
    const t = this.peek();
    if (t.kind === 'end' || t.kind === ',') return '';
    this.next();
    if (t.kind === 'id') return t.text;
    throw new BadRequestError(`found '${t.text}', expected: identifier`);
  }
}

/** Parses `k=v,k!=v,k in (a,b),k notin (a),k,!k,k>1`. Requirements come back sorted by key. */
export function parseLabelSelector(s: string): LabelRequirement[] {
  const reqs = new LabelSelectorParser(lex(s)).parse();
  return reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
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

/** The canonical string of requirements (upstream's Selector.String()). */
export function labelRequirementsToString(reqs: LabelRequirement[]): string {
  const opText: Record<LabelOperator, string> = {
    In: ' in ', NotIn: ' notin ', Equals: '=', NotEquals: '!=', Exists: '', DoesNotExist: '',
    GreaterThan: '>', LessThan: '<',
  };
  return reqs
    .map((r) => {
      if (r.operator === 'Exists') return r.key;
      if (r.operator === 'DoesNotExist') return `!${r.key}`;
      const values = [...r.values].sort().join(',');
      const shown = r.operator === 'In' || r.operator === 'NotIn' ? `(${values})` : values;
      return `${r.key}${opText[r.operator]}${shown}`;
    })
    .join(',');
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

export { fieldNames, matchesFieldRequirements, parseFieldSelector, type FieldRequirement } from './field-selectors.js';
