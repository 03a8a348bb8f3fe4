/**
 * The shape of a fidelity case: plain data that says which requests to send, in which order, and
 * which part of the answer to compare. The corpus files build these; the engine replays them
 * against each server and compares what came back.
 *
 * Strings anywhere in a case may hold placeholders, filled in per case and server:
 *   {id}   the case id (names of cluster-scoped objects, label values)
 *   {ns}   a namespace of the case's own, created before its setup when the case mentions it
 *   {dir}  a temp directory holding the case's files (kubectl steps)
 *   {$x}   a value an earlier step saved under `x`
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpStep {
  kind: 'http';
  method: HttpMethod;
  path: string;
  /** An object is sent as JSON; a string as it is. */
  body?: unknown;
  contentType?: string;
  accept?: string;
  /**
   * Values of the JSON answer to keep for later steps: name → dotted path
   * (`metadata.resourceVersion`), or `.` for the whole answer (for `edit`).
   */
  save?: Record<string, string>;
  /** Send the answer saved as `of`, with `merge` merged into it (read-modify-write, as clients do). */
  edit?: { of: string; merge: Record<string, unknown> };
}

/** A watch: opened, then `during` runs, then events are read until `events` arrived or the stream ends. */
export interface WatchStep {
  kind: 'watch';
  path: string;
  accept?: string;
  during?: HttpStep[];
  /** How many events end the watch early (it ends at its deadline otherwise). */
  events: number;
}

/** Repeats a request until it answers `untilStatus` (or gives up after `timeoutMs`). */
export interface PollStep {
  kind: 'poll';
  request: HttpStep;
  untilStatus: number;
  timeoutMs: number;
}

/** The same request `times` times (history churn); `{i}` in it is the iteration number. */
export interface RepeatStep {
  kind: 'repeat';
  request: HttpStep;
  times: number;
}

export interface KubectlStep {
  kind: 'kubectl';
  args: string[];
  stdin?: string;
  /** Files written into {dir} before kubectl runs. */
  files?: Record<string, string>;
  /** A shell script kubectl runs as $EDITOR (gets the file to edit as $1). */
  editor?: string;
  /**
   * For commands that keep running (`get -w`): once stdout matches `ready`, `during` runs; kubectl
   * is stopped once stdout matches `until` (or at its deadline).
   */
  stream?: { ready: string; during: HttpStep[]; until: string };
}

export type Step = HttpStep | WatchStep | PollStep | RepeatStep | KubectlStep;

/**
 * What of an answer is compared; the default is all of it. Discovery and OpenAPI answers list far
 * more on kube-apiserver than we serve, so their views keep only what we claim to serve.
 */
export type View =
  /** An APIResourceList with only these resources (by name, sorted). */
  | { kind: 'resources'; names: string[] }
  /** An APIGroupList with only these groups. */
  | { kind: 'groups'; names: string[] }
  /** The JSON type (or "absent") at each path; a path's keys are separated by spaces, as keys hold dots and slashes. */
  | { kind: 'shape'; paths: string[] }
  /** The exact JSON value (or "absent") at each path, keys separated by spaces as for `shape`. */
  | { kind: 'values'; paths: string[] }
  /** kubectl output: only the lines this regular expression matches. */
  | { kind: 'lines'; match: string };

export interface Case {
  id: string;
  area: string;
  /** The kind under test (for the by-resource table); none for discovery and such. */
  resource?: string;
  title: string;
  setup?: Step[];
  request: Step;
  view?: View;
}
