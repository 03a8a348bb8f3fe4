/**
 * A Prometheus histogram for a source that keeps only a sum and a count per series (the work
 * queues do). prom-client cannot set a histogram's sum, so this is a tiny metric object of its own
 * that its Registry formats like any other.
 */
import type { Metric, MetricObjectWithValues, MetricType, MetricValueWithName } from 'prom-client';

export interface SumCount {
  labels: Record<string, string>;
  sum: number;
  count: number;
}

/**
 * A histogram whose source keeps only a sum and a count per series: exposed with the +Inf bucket,
 * `_sum` and `_count`, which Prometheus accepts and `rate(_sum)/rate(_count)` averages correctly.
 */
export class SumCountHistogram {
  /** prom-client declares MetricType as an enum in its typings only; its value is the plain string. */
  readonly type = 'histogram' as unknown as MetricType;
  readonly aggregator = 'sum';

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => SumCount[],
  ) {}

  get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    const values: MetricValueWithName<string>[] = [];
    for (const s of this.read()) {
      values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values, collect: () => undefined });
  }

  /** prom-client's Registry only needs name, type and get(); its types list its own classes. */
  asMetric(): Metric {
    return this as unknown as Metric;
  }
}
