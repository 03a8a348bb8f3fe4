/**
 * The text Go's encoding/json gives for JSON that does not parse ("invalid character '}'
 * looking for beginning of object key string", "unexpected end of JSON input"), found by
 * walking the bytes with the states of Go's scanner (encoding/json/scanner.go). Only called once
 * JSON.parse has refused a text, so it costs nothing on the normal path.
 */
import { goQuote } from '@pv-controller/kube/name-validation.js';

/** What an open container expects next, as Go's parse states name them. */
type Container = 'objectKey' | 'objectValue' | 'arrayValue';

type State =
  | 'beginValue' | 'beginValueOrEmpty' | 'beginString' | 'beginStringOrEmpty' | 'endValue' | 'endTop'
  | 'inString' | 'inStringEsc' | 'inStringEscU' | 'neg' | 'zero' | 'digits' | 'dot' | 'dotDigits'
  | 'exp' | 'expSign' | 'expDigits' | 'literal';

const END_OF_INPUT = 'unexpected end of JSON input';

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/** Go's quoteChar: a byte as a Go rune literal. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  return `'${goQuote(String.fromCharCode(c)).slice(1, -1)}'`;
}

const LITERALS: Record<number, string> = { 0x74: 'true', 0x66: 'false', 0x6e: 'null' };

class Scanner {
  state: State = 'beginValue';
  readonly stack: Container[] = [];
  /** The literal being read and how many of its bytes have been seen. */
  literal = '';
  seen = 0;
  hexLeft = 0;

  complete(): boolean {
    return this.state === 'endTop';
  }

  /** Feeds one byte; returns the error text when the byte is not allowed here. */
  step(c: number): string | undefined {
    switch (this.state) {
      case 'beginValueOrEmpty':
        if (isSpace(c)) return undefined;
        if (c === 0x5d) return this.close();
        return this.beginValue(c);
      case 'beginValue': return this.beginValue(c);
      case 'beginStringOrEmpty':
        if (isSpace(c)) return undefined;
        if (c === 0x7d) return this.close();
        return this.beginString(c);
      case 'beginString': return this.beginString(c);
      case 'endValue': return this.endValue(c);
      case 'endTop': return isSpace(c) ? undefined : this.error(c, 'after top-level value');
      default: return this.inToken(c);
    }
  }

  private error(c: number, context: string): string {
    return `invalid character ${quoteChar(c)} ${context}`;
  }

  private beginValue(c: number): string | undefined {
    if (isSpace(c)) return undefined;
    const literal = LITERALS[c];
    if (literal !== undefined) {
      [this.state, this.literal, this.seen] = ['literal', literal, 1];
      return undefined;
    }
    if (c === 0x7b) this.open('objectKey', 'beginStringOrEmpty');
    else if (c === 0x5b) this.open('arrayValue', 'beginValueOrEmpty');
    else if (c === 0x22) this.state = 'inString';
    else if (c === 0x2d) this.state = 'neg';
    else if (c === 0x30) this.state = 'zero';
    else if (isDigit(c)) this.state = 'digits';
    else return this.error(c, 'looking for beginning of value');
    return undefined;
  }

  private open(container: Container, next: State): void {
    this.stack.push(container);
    this.state = next;
  }

  private beginString(c: number): string | undefined {
    if (isSpace(c)) return undefined;
    if (c !== 0x22) return this.error(c, 'looking for beginning of object key string');
    this.state = 'inString';
    return undefined;
  }

  private close(): undefined {
    this.stack.pop();
    this.state = this.stack.length === 0 ? 'endTop' : 'endValue';
    return undefined;
  }

  private endValue(c: number): string | undefined {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) {
      this.state = 'endTop';
      return this.step(c);
    }
    if (isSpace(c)) {
      this.state = 'endValue';
      return undefined;
    }
    if (top === 'objectKey') {
      if (c !== 0x3a) return this.error(c, 'after object key');
      [this.stack[this.stack.length - 1], this.state] = ['objectValue', 'beginValue'];
    } else if (top === 'objectValue') {
      if (c === 0x2c) [this.stack[this.stack.length - 1], this.state] = ['objectKey', 'beginString'];
      else if (c === 0x7d) return this.close();
      else return this.error(c, 'after object key:value pair');
    } else if (c === 0x2c) this.state = 'beginValue';
    else if (c === 0x5d) return this.close();
    else return this.error(c, 'after array element');
    return undefined;
  }

  /** Inside a string, number or literal. */
  private inToken(c: number): string | undefined {
    switch (this.state) {
      case 'inString':
        if (c === 0x22) this.state = 'endValue';
        else if (c === 0x5c) this.state = 'inStringEsc';
        else if (c < 0x20) return this.error(c, 'in string literal');
        return undefined;
      case 'inStringEsc':
        if (c === 0x75) [this.state, this.hexLeft] = ['inStringEscU', 4];
        else if ('bfnrt\\/"'.includes(String.fromCharCode(c))) this.state = 'inString';
        else return this.error(c, 'in string escape code');
        return undefined;
      case 'inStringEscU':
        if (!isHex(c)) return this.error(c, 'in \\u hexadecimal character escape');
        if (--this.hexLeft === 0) this.state = 'inString';
        return undefined;
      case 'literal': {
        const want = this.literal.charCodeAt(this.seen);
        if (c !== want) return this.error(c, `in literal ${this.literal} (expecting ${quoteChar(want)})`);
        if (++this.seen === this.literal.length) this.state = 'endValue';
        return undefined;
      }
      default: return this.inNumber(c);
    }
  }

  private inNumber(c: number): string | undefined {
    switch (this.state) {
      case 'neg':
        if (!isDigit(c)) return this.error(c, 'in numeric literal');
        this.state = c === 0x30 ? 'zero' : 'digits';
        return undefined;
      case 'digits':
        if (isDigit(c)) return undefined;
        return this.afterInteger(c);
      case 'zero': return this.afterInteger(c);
      case 'dot':
        if (!isDigit(c)) return this.error(c, 'after decimal point in numeric literal');
        this.state = 'dotDigits';
        return undefined;
      case 'dotDigits':
        if (isDigit(c)) return undefined;
        if (c === 0x65 || c === 0x45) this.state = 'exp';
        else return this.endValue(c);
        return undefined;
      case 'exp':
        if (c === 0x2b || c === 0x2d) {
          this.state = 'expSign';
          return undefined;
        }
        return this.expSign(c);
      case 'expSign': return this.expSign(c);
      default:
        if (isDigit(c)) return undefined;
        return this.endValue(c);
    }
  }

  private afterInteger(c: number): string | undefined {
    if (c === 0x2e) this.state = 'dot';
    else if (c === 0x65 || c === 0x45) this.state = 'exp';
    else return this.endValue(c);
    return undefined;
  }

  private expSign(c: number): string | undefined {
    if (!isDigit(c)) return this.error(c, 'in exponent of numeric literal');
    this.state = 'expDigits';
    return undefined;
  }
}

/** Go's error for `bytes` as a JSON text, or undefined when Go's scanner accepts it. */
export function goJsonSyntaxError(bytes: Uint8Array): string | undefined {
  const scanner = new Scanner();
  for (const c of bytes) {
    const error = scanner.step(c);
    if (error !== undefined) return error;
  }
  if (scanner.complete()) return undefined;
  // As Go's scanner.eof: a value that a space would end (a number at the top level) is complete.
  if (scanner.step(0x20) === undefined && scanner.complete()) return undefined;
  return END_OF_INPUT;
}
