/**
 * A parser for the Prometheus text exposition format 0.0.4 (what /metrics serves; prom-client
 * only writes it). Enough of the format for reading a scrape: `# HELP` / `# TYPE` lines, samples
 * `name{label="value",...} value [timestamp]` with escaped label values (\\, \", \n), and the
 * special values +Inf, -Inf and NaN. Other comments and blank lines are skipped.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
  /** Milliseconds since the epoch, when the line carries one. */
  timestamp?: number;
}

export interface MetricFamilyInfo {
  type?: string;
  help?: string;
}

export interface ParsedExposition {
  samples: Sample[];
  /** HELP and TYPE by metric family name. */
  families: Map<string, MetricFamilyInfo>;
}

export class ExpositionParseError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'ExpositionParseError';
  }
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

export function parseExposition(text: string): ParsedExposition {
  const samples: Sample[] = [];
  const families = new Map<string, MetricFamilyInfo>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      readComment(line, families);
      continue;
    }
    samples.push(parseSampleLine(line, i + 1));
  }
  return { samples, families };
}

/** `# HELP name text` / `# TYPE name type`; anything else after `#` is a plain comment. */
function readComment(line: string, families: Map<string, MetricFamilyInfo>): void {
  const m = /^#\s+(HELP|TYPE)\s+([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\s+(.*))?$/.exec(line);
  if (!m) return;
  const info = families.get(m[2]) ?? {};
  if (m[1] === 'TYPE') info.type = (m[3] ?? '').trim();
  else info.help = unescapeHelp(m[3] ?? '');
  families.set(m[2], info);
}

function parseSampleLine(line: string, lineNo: number): Sample {
  const nameMatch = METRIC_NAME.exec(line);
  if (!nameMatch) throw new ExpositionParseError(lineNo, `expected a metric name in ${JSON.stringify(line.slice(0, 80))}`);
  const name = nameMatch[0];
  let rest = line.slice(name.length);
  let labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    const parsed = parseLabels(rest, lineNo);
    labels = parsed.labels;
    rest = rest.slice(parsed.length);
  }
  const fields = rest.trim().split(/\s+/);
  if (fields.length < 1 || fields.length > 2 || fields[0] === '') {
    throw new ExpositionParseError(lineNo, `expected "value [timestamp]" after ${name}, got ${JSON.stringify(rest.trim())}`);
  }
  const sample: Sample = { name, labels, value: parseValue(fields[0], lineNo) };
  if (fields.length === 2) {
    if (!/^-?\d+$/.test(fields[1])) throw new ExpositionParseError(lineNo, `bad timestamp ${JSON.stringify(fields[1])}`);
    sample.timestamp = Number(fields[1]);
  }
  return sample;
}

/** Parses `{a="x",b="y"}` at the start of `text`; returns the labels and the characters consumed. */
function parseLabels(text: string, lineNo: number): { labels: Record<string, string>; length: number } {
  const labels: Record<string, string> = {};
  let pos = 1;
  const skipSpaces = (): void => {
    while (text[pos] === ' ' || text[pos] === '\t') pos++;
  };
  for (;;) {
    skipSpaces();
    if (text[pos] === '}') return { labels, length: pos + 1 };
    const nameMatch = LABEL_NAME.exec(text.slice(pos));
    if (!nameMatch) throw new ExpositionParseError(lineNo, `expected a label name at column ${pos + 1}`);
    pos += nameMatch[0].length;
    skipSpaces();
    if (text[pos] !== '=' || text[pos + 1] !== '"') throw new ExpositionParseError(lineNo, `expected ="..." after label ${nameMatch[0]}`);
    pos += 2;
    const value = readQuoted(text, pos, lineNo);
    if (Object.hasOwn(labels, nameMatch[0])) throw new ExpositionParseError(lineNo, `label ${nameMatch[0]} appears twice`);
    labels[nameMatch[0]] = value.value;
    pos = value.end;
    skipSpaces();
    if (text[pos] === ',') pos++;
    else if (text[pos] !== '}') throw new ExpositionParseError(lineNo, `expected , or } at column ${pos + 1}`);
  }
}

/** Reads an escaped label value whose opening quote is just before `start`. */
function readQuoted(text: string, start: number, lineNo: number): { value: string; end: number } {
  let out = '';
  for (let pos = start; pos < text.length; pos++) {
    const c = text[pos];
    if (c === '"') return { value: out, end: pos + 1 };
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = text[++pos];
    if (next === 'n') out += '\n';
    else if (next === '\\' || next === '"') out += next;
    else throw new ExpositionParseError(lineNo, `bad escape \\${next ?? ''} in a label value`);
  }
  throw new ExpositionParseError(lineNo, 'unterminated label value');
}

/** Prometheus parses values with Go's ParseFloat: NaN and Inf in any case (prom-client writes `Nan`). */
function parseValue(text: string, lineNo: number): number {
  const word = text.toLowerCase();
  if (word === '+inf' || word === 'inf') return Infinity;
  if (word === '-inf') return -Infinity;
  if (word === 'nan') return NaN;
  const n = Number(text);
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) || Number.isNaN(n)) {
    throw new ExpositionParseError(lineNo, `bad sample value ${JSON.stringify(text)}`);
  }
  return n;
}

function unescapeHelp(text: string): string {
  return text.replace(/\\(\\|n)/g, (_m, c: string) => (c === 'n' ? '\n' : '\\'));
}
