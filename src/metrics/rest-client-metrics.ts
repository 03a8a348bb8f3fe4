/**
 * client-go's REST client metrics for the controller's requests to the API server:
 * `rest_client_requests_total` {code, method, host} and `rest_client_request_duration_seconds`
 * {verb, host} (verb is the HTTP method, as client-go labels it) with client-go's buckets. A
 * request that got no response counts under code `<error>`, as client-go's does. The transport
 * (kube-client/transport.ts) reports each request; the rate limiter's wait is not included.
 */
import { Counter, Histogram, type Registry } from 'prom-client';

/** client-go's rest_client_request_duration_seconds buckets. */
export const REST_CLIENT_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/** Structurally kube-client's RequestObserver (metrics/ does not import kube-client/). */
export interface RestClientObserver {
  onRequest(method: string, host: string, code: number, seconds: number): void;
}

export function registerRestClientMetrics(registry: Registry): RestClientObserver {
  const registers = [registry];
  const requests = new Counter({
    name: 'rest_client_requests_total',
    help: 'Number of HTTP requests, partitioned by status code, method, and host.',
    labelNames: ['code', 'method', 'host'],
    registers,
  });
  const latency = new Histogram({
    name: 'rest_client_request_duration_seconds',
    help: 'Request latency in seconds. Broken down by verb, and host.',
    labelNames: ['verb', 'host'],
    buckets: REST_CLIENT_BUCKETS,
    registers,
  });
  return {
    onRequest: (method, host, code, seconds) => {
      requests.inc({ code: code === 0 ? '<error>' : String(code), method, host });
      latency.observe({ verb: method, host }, seconds);
    },
  };
}
