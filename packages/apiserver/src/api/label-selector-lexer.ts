/**
 * The label selector lexer (upstream's labels.Lexer): identifiers, the keywords `in`/`notin`,
 * and the longest operator made of special symbols. Pure; used by label-selector-parser.ts.
 */

type TokenKind = 'end' | 'id' | 'in' | 'notin' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<' | 'error';
export interface Token {
  kind: TokenKind;
  text: string;
}

const SYMBOL_TOKENS = new Set(['(', ')', ',', '!', '=', '==', '!=', '>', '<']);
const isSpecial = (ch: string): boolean => '=!(),><'.includes(ch);
const isSpace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';

export function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  for (;;) {
    while (pos < input.length && isSpace(input[pos])) pos++;
    if (pos >= input.length) {
      tokens.push({ kind: 'end', text: '' });
      return tokens;
    }
    if (isSpecial(input[pos])) {
      // Longest operator made of special symbols, as upstream's scanSpecialSymbol.
      let buffer = '';
      let last: Token | undefined;
      while (pos < input.length && isSpecial(input[pos])) {
        buffer += input[pos];
        if (SYMBOL_TOKENS.has(buffer)) last = { kind: buffer as TokenKind, text: buffer };
        else if (last) break;
        pos++;
      }
      tokens.push(last ?? { kind: 'error', text: `error expected: keyword found '${buffer}'` });
      continue;
    }
    const start = pos;
    while (pos < input.length && !isSpecial(input[pos]) && !isSpace(input[pos])) pos++;
    const word = input.slice(start, pos);
    tokens.push({ kind: word === 'in' || word === 'notin' ? word : 'id', text: word });
  }
}
