/**
 * The API server's own /metrics in Prometheus text, under kube-apiserver's names and labels:
 * request counts and latencies by verb, group, version, resource, subresource, scope, component
 * (and code), in-flight and long-running (watch) requests, and stored objects per resource.
 * Its own prom-client Registry: `up` runs the controller, with metrics of its own, in the same
 * process.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Verb } from '../endpoints/resource-handler.js';
import type { ResourcePath } from '../api/router.js';

/** The labels kube-apiserver's request metrics share. */
export interface RequestMetricLabels {
  verb: string;
  dry_run: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
  component: string;
}

/** apiserver_request_duration_seconds' buckets in kube-apiserver (component-base/metrics). */
const DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

const REQUEST_LABELS = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
const LONGRUNNING_LABELS = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

/** The verb as kube-apiserver's metrics report it: the route's action (POST, PUT, ...), APPLY for a server-side apply. */
function reportedVerb(verb: Verb, contentType: string | undefined): string {
  switch (verb) {
    case 'create':
      return 'POST';
    case 'update':
      return 'PUT';
    case 'patch':
      return (contentType ?? '').split(';')[0].trim() === 'application/apply-patch+yaml' ? 'APPLY' : 'PATCH';
    default:
      return verb.toUpperCase();
  }
}

/** `resource` for a named object or a create, `namespace` or `cluster` for collections. */
function scopeOf(route: ResourcePath, verb: Verb): string {
  if (route.name !== undefined || verb === 'create') return 'resource';
  return route.namespace !== undefined && route.namespace !== '' ? 'namespace' : 'cluster';
}

export function resourceRequestLabels(route: ResourcePath, verb: Verb, contentType: string | undefined, dryRun: string): RequestMetricLabels {
  return {
    verb: reportedVerb(verb, contentType),
    dry_run: dryRun,
    group: route.group,
    version: route.version,
    resource: route.plural,
    subresource: route.subresource ?? '',
    scope: scopeOf(route, verb),
    component: 'apiserver',
  };
}

/** A request to a path that names no resource (health, /metrics): the path stands in the subresource label. */
export function nonResourceRequestLabels(method: string, path: string): RequestMetricLabels {
  return { verb: method, dry_run: '', group: '', version: '', resource: '', subresource: path, scope: '', component: '' };
}

function longRunningLabels(l: RequestMetricLabels): Record<(typeof LONGRUNNING_LABELS)[number], string> {
  return { verb: l.verb, group: l.group, version: l.version, resource: l.resource, subresource: l.subresource, scope: l.scope, component: l.component };
}

export interface StoredObjectCounter {
  /** Resources served, as group and plural. */
  resources(): { group: string; plural: string }[];
  count(group: string, plural: string): number;
}

export class ApiServerMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<string>;
  private readonly durations: Histogram<string>;
  private readonly inflight: Gauge<string>;
  private readonly longRunning: Gauge<string>;

  constructor(objects: StoredObjectCounter) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'apiserver_request_total',
      help: '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: [...REQUEST_LABELS, 'code'],
      registers,
    });
    this.durations = new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: '[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: [...REQUEST_LABELS],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.inflight = new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: '[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers,
    });
    this.longRunning = new Gauge({
      name: 'apiserver_longrunning_requests',
      help: '[STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
      labelNames: [...LONGRUNNING_LABELS],
      registers,
    });
    new Gauge({
      name: 'apiserver_resource_objects',
      help: '[ALPHA] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
      labelNames: ['group', 'resource'],
      registers,
      collect(this: Gauge<string>) {
        for (const r of objects.resources()) this.set({ group: r.group, resource: r.plural }, objects.count(r.group, r.plural));
      },
    });
    this.inflight.set({ request_kind: 'mutating' }, 0);
    this.inflight.set({ request_kind: 'readOnly' }, 0);
  }

  /** Marks a request in flight; the returned function ends it. */
  started(method: string): () => void {
    const kind = method === 'GET' || method === 'HEAD' ? 'readOnly' : 'mutating';
    this.inflight.inc({ request_kind: kind });
    return () => this.inflight.dec({ request_kind: kind });
  }

  observe(labels: RequestMetricLabels, code: number, seconds: number): void {
    this.requests.inc({ ...labels, code: String(code) });
    this.durations.observe({ ...labels }, seconds);
  }

  /** A watch is open until the returned function is called. */
  longRunningStarted(labels: RequestMetricLabels): () => void {
    const l = longRunningLabels(labels);
    this.longRunning.inc(l);
    return () => this.longRunning.dec(l);
  }

  contentType(): string {
    return this.registry.contentType;
  }

  async text(): Promise<string> {
    return await this.registry.metrics();
  }
}
