/**
 * Replays cases against one server: fills in the placeholders, creates the case's namespace when
 * it uses one, runs the setup steps (their statuses are part of what is compared, so a setup that
 * only one server accepts shows) and then the request, whose whole answer is kept.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Case, HttpStep, Step } from './case.js';
import { isObject } from './compare.js';
import { TargetClient, type HttpAnswer } from './http.js';
import { runKubectlStep, type KubectlAnswer } from './kubectl-step.js';

export type Answer = HttpAnswer | KubectlAnswer | { error: string };

export interface Outcome {
  /** One entry per setup step: its status (or exit code), or the error it ran into. */
  setup: Array<number | string>;
  answer: Answer;
}

/** How long a watch or a streaming kubectl may take to show what a case waits for. */
const WATCH_DEADLINE_MS = 4000;

type Vars = Map<string, string>;
/** Whole answers saved with `save: { x: '.' }`, for `edit`. */
type Saved = Map<string, unknown>;

export function caseNamespace(id: string): string {
  return `f-${id}`;
}

function fill(text: string, vars: Vars): string {
  return text.replace(/\{(\$?\w+)\}/g, (whole, key: string) => vars.get(key) ?? whole);
}

/** A copy of `value` with every string's placeholders filled in. */
export function substitute<T>(value: T, vars: Vars): T {
  if (typeof value === 'string') return fill(value, vars) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => substitute(v, vars)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, vars)])) as T;
  }
  return value;
}

/** `base` with `change` merged in the way a JSON merge patch merges (null removes). */
export function merged(base: unknown, change: unknown): unknown {
  if (!isObject(change)) return change;
  const out: Record<string, unknown> = isObject(base) ? { ...base } : {};
  for (const [k, v] of Object.entries(change)) {
    if (v === null) delete out[k];
    else out[k] = merged(out[k], v);
  }
  return out;
}

function valueAt(body: unknown, dotted: string): unknown {
  if (dotted === '.') return body;
  let cur = body;
  for (const key of dotted.split('.')) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = Array.isArray(cur) ? cur[Number(key)] : (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function errorText(err: unknown): string {
  return `error: ${err instanceof Error ? err.message : String(err)}`;
}

export class Replayer {
  private readonly client: TargetClient;

  constructor(readonly target: TargetClient['target']) {
    this.client = new TargetClient(target);
  }

  close(): void {
    this.client.close();
  }

  private readonly saved: Saved = new Map();

  private async http(step: HttpStep, vars: Vars): Promise<HttpAnswer> {
    const s = substitute(step, vars);
    const body = s.edit ? merged(this.saved.get(s.edit.of), s.edit.merge) : s.body;
    const answer = await this.client.send({ ...s, body });
    for (const [name, path] of Object.entries(s.save ?? {})) {
      const v = valueAt(answer.body, path);
      if (v === undefined) continue;
      this.saved.set(name, v);
      vars.set(`$${name}`, typeof v === 'string' ? v : JSON.stringify(v));
    }
    return answer;
  }

  private async step(step: Step, vars: Vars): Promise<Answer> {
    switch (step.kind) {
      case 'http':
        return this.http(step, vars);
      case 'watch': {
        const s = substitute(step, vars);
        return this.client.watch({ method: 'GET', path: s.path, accept: s.accept }, s.events, WATCH_DEADLINE_MS, async () => {
          for (const d of s.during ?? []) await this.http(d, vars);
        });
      }
      case 'poll': {
        const deadline = Date.now() + step.timeoutMs;
        let last = await this.http(step.request, vars);
        while (last.status !== step.untilStatus && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 250));
          last = await this.http(step.request, vars);
        }
        return last;
      }
      case 'repeat': {
        let last: HttpAnswer | undefined;
        for (let i = 0; i < step.times; i++) {
          vars.set('i', String(i));
          last = await this.http(step.request, vars);
        }
        return last ?? { error: 'repeated nothing' };
      }
      case 'kubectl':
        return runKubectlStep(substitute(step, vars), this.target, vars.get('dir')!, WATCH_DEADLINE_MS, (d) => this.http(d, vars).then(() => undefined));
    }
  }

  async run(c: Case): Promise<Outcome> {
    const dir = await mkdtemp(join(tmpdir(), `fidelity-${this.target.name}-`));
    const vars: Vars = new Map([['id', c.id], ['ns', caseNamespace(c.id)], ['dir', dir]]);
    try {
      if (JSON.stringify(c).includes('{ns}')) {
        await this.client.send({ method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name: caseNamespace(c.id) } } });
      }
      this.saved.clear();
      const setup: Array<number | string> = [];
      for (const s of c.setup ?? []) {
        setup.push(await this.step(s, vars).then(statusOf, errorText));
      }
      const answer = await this.step(c.request, vars).catch((err: unknown) => ({ error: errorText(err) }));
      return { setup, answer };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

function statusOf(a: Answer): number | string {
  if ('status' in a) return a.status;
  if ('exitCode' in a) return `exit ${a.exitCode}`;
  return a.error;
}
