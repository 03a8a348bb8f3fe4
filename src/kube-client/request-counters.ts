/** Requests and their outcomes per Kubernetes verb (the benchmark and /metrics read these). */

/** Kubernetes verb names, used for counting. */
export type KubeVerb = 'get' | 'list' | 'create' | 'update' | 'patch' | 'delete';

export interface VerbCounts {
  requests: number;
  conflicts: number;
  errors: number;
}

export class RequestCounters {
  private readonly byVerb = new Map<KubeVerb, VerbCounts>();

  /** `status` 0 means the request failed before a response arrived. */
  record(verb: KubeVerb, status: number): void {
    let c = this.byVerb.get(verb);
    if (!c) {
      c = { requests: 0, conflicts: 0, errors: 0 };
      this.byVerb.set(verb, c);
    }
    c.requests += 1;
    if (status === 409) c.conflicts += 1;
    else if (status === 0 || status >= 400) c.errors += 1;
  }

  snapshot(): Record<string, VerbCounts> {
    const out: Record<string, VerbCounts> = {};
    for (const [verb, c] of this.byVerb) out[verb] = { ...c };
    return out;
  }
}

/** The HTTP method each verb is sent with (what client-go's rest_client metrics label). */
export const METHOD_OF_VERB: Record<KubeVerb, string> = { get: 'GET', list: 'GET', create: 'POST', update: 'PUT', patch: 'PATCH', delete: 'DELETE' };

/** Told of every finished request (Prometheus: rest_client_requests_total and rest_client_request_duration_seconds). */
export interface RequestObserver {
  /** `code` 0 means no response arrived; `host` is the API server's host:port; `seconds` excludes the rate limiter's wait. */
  onRequest(method: string, host: string, code: number, seconds: number): void;
}
