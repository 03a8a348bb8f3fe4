/**
 * client-go's work-queue metrics for the controller's queues, under client-go's names {name}:
 * `workqueue_depth`, `workqueue_adds_total`, `workqueue_retries_total` (read from the queues'
 * counters on scrape) and the two latency histograms `workqueue_queue_duration_seconds` and
 * `workqueue_work_duration_seconds`, observed per item by the queue itself (QueueLatencyObserver)
 * with client-go's buckets, ExponentialBuckets(10e-9, 10, 10): 10 ns to 10 s.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The counters a work queue keeps (structurally the controller's QueueStats). */
export interface QueueCounters {
  depth: number;
  adds: number;
  retries: number;
}

/** What a work queue reports about each item it hands to a worker (the queue calls it). */
export interface QueueLatencyObserver {
  /** The item waited `seconds` between its add and a worker taking it. */
  queued(queue: string, seconds: number): void;
  /** A worker spent `seconds` on the item. */
  worked(queue: string, seconds: number): void;
}

/**
 * Prometheus' ExponentialBuckets: `count` bounds from `start`, each `factor` times the last,
 * rounded to 12 significant digits so the `le` labels read 1e-8, 1e-7, … rather than float noise.
 */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  if (!(start > 0) || !(factor > 1) || !(count >= 1)) throw new RangeError('exponentialBuckets needs start > 0, factor > 1, count ≥ 1');
  const out: number[] = [];
  for (let i = 0, b = start; i < count; i++, b *= factor) out.push(Number(b.toPrecision(12)));
  return out;
}

/** client-go's workqueue duration buckets. */
export const WORKQUEUE_DURATION_BUCKETS = exponentialBuckets(10e-9, 10, 10);

export function registerWorkqueueMetrics(registry: Registry, queues: () => Array<[string, QueueCounters]>): QueueLatencyObserver {
  const registers = [registry];
  new Gauge({
    name: 'workqueue_depth',
    help: 'Current depth of workqueue',
    labelNames: ['name'],
    registers,
    collect() {
      this.reset();
      for (const [name, q] of queues()) this.set({ name }, q.depth);
    },
  });
  const total = (name: string, help: string, pick: (q: QueueCounters) => number): void => {
    new Counter({
      name,
      help,
      labelNames: ['name'],
      registers,
      collect() {
        this.reset();
        for (const [queue, q] of queues()) this.inc({ name: queue }, pick(q));
      },
    });
  };
  total('workqueue_adds_total', 'Total number of adds handled by workqueue', (q) => q.adds);
  total('workqueue_retries_total', 'Total number of retries handled by workqueue', (q) => q.retries);
  const histogram = (name: string, help: string): Histogram<'name'> =>
    new Histogram({ name, help, labelNames: ['name'], buckets: WORKQUEUE_DURATION_BUCKETS, registers });
  const queueDuration = histogram('workqueue_queue_duration_seconds', 'How long in seconds an item stays in workqueue before being requested');
  const workDuration = histogram('workqueue_work_duration_seconds', 'How long in seconds processing an item from workqueue takes');
  return {
    queued: (queue, seconds) => queueDuration.observe({ name: queue }, seconds),
    worked: (queue, seconds) => workDuration.observe({ name: queue }, seconds),
  };
}
