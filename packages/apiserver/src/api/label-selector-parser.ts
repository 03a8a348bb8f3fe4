/**
 * The string form of label selectors (`k=v,k!=v,k in (a,b),k notin (a),k,!k,k>1`), with
 * apimachinery's grammar and messages (k8s.io/apimachinery/pkg/labels): what a `?labelSelector=`
 * says, parsed into the requirements of kube/selectors.ts, and their canonical string. Parse
 * failures throw BadRequestError, as kube-apiserver answers a bad selector.
 */
import { BadRequestError } from '@pv-controller/kube/errors.js';
import { goQuote, isQualifiedName } from '@pv-controller/kube/name-validation.js';
import { newRequirement, type LabelOperator, type LabelRequirement } from '@pv-controller/kube/selectors.js';
import { lex, type Token } from './label-selector-lexer.js';

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

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
