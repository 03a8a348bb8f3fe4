/**
 * A watch the bench can time by: when the server closes it (kube-apiserver closes a watch whose
 * reader falls behind, and any server may end one), it is opened again from the last
 * resourceVersion seen, so no event is lost; after 410 Gone (that version compacted away) the
 * caller re-reads the collection and the watch goes on from the list's version. Lines reach
 * `onLine` unparsed, except that the resourceVersion is picked out of each with one regex.
 */
import { note } from '../progress.js';
import type { BenchClient } from './kube-client.js';

export interface WatchSpec {
  /** The collection, e.g. "/api/v1/persistentvolumes". */
  path: string;
  fromResourceVersion: number;
  onLine(line: string): void;
  /** After 410 Gone: read the collection afresh (a LIST), account for what changed, return its resourceVersion. */
  relist(): Promise<number>;
}

export interface ResumableWatch {
  /** Why the watch cannot go on (an ERROR event other than 410 Gone, or no reconnect), else undefined. */
  failure(): string | undefined;
  /** How often the server ended the watch and it was opened again, and how often that took a LIST. */
  resumes(): { reopened: number; relisted: number };
  stop(): void;
}

const RESOURCE_VERSION = /"resourceVersion":"(\d+)"/;
const REOPEN_ATTEMPTS = 5;

export async function resumableWatch(client: BenchClient, spec: WatchSpec): Promise<ResumableWatch> {
  let rv = spec.fromResourceVersion;
  let gone = false;
  let stopped = false;
  let failure: string | undefined;
  let close: () => void = () => undefined;
  const resumes = { reopened: 0, relisted: 0 };
  const onLine = (line: string): void => {
    if (line.startsWith('{"type":"ERROR"')) {
      if (line.includes('"code":410')) gone = true;
      else failure ??= line.slice(0, 300);
      return;
    }
    const match = RESOURCE_VERSION.exec(line);
    if (match) rv = Number(match[1]);
    if (!line.startsWith('{"type":"BOOKMARK"')) spec.onLine(line);
  };
  const open = async (): Promise<void> => {
    close = await client.stream(`${spec.path}?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`, onLine, (why) => {
      note(`watch ${spec.path} ended at resourceVersion ${rv} (${why}); reopening`);
      void reopen();
    });
  };
  const reopen = async (): Promise<void> => {
    for (let attempt = 1; !stopped && failure === undefined; attempt++) {
      try {
        if (gone) {
          rv = await spec.relist();
          gone = false;
          resumes.relisted++;
        }
        await open();
        resumes.reopened++;
        return;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (/HTTP 410/.test(message)) gone = true;
        else if (attempt >= REOPEN_ATTEMPTS) failure = `watch ${spec.path} could not be reopened: ${message}`;
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  };
  await open();
  return {
    failure: () => failure,
    resumes: () => ({ ...resumes }),
    stop() {
      stopped = true;
      close();
    },
  };
}
