import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ExpositionParseError, parseExposition } from '../../src/metrics/text-format.js';

describe('parseExposition (Prometheus text format 0.0.4)', () => {
  test('reads HELP, TYPE and samples with and without labels and timestamps', () => {
    const text = [
      '# HELP http_requests_total The total number of HTTP requests.',
      '# TYPE http_requests_total counter',
      'http_requests_total{method="post",code="200"} 1027 1395066363000',
      'http_requests_total{method="post",code="400"}    3 1395066363000',
      '',
      '# A plain comment',
      'metric_without_timestamp_and_labels 12.47',
      'go_gc_seconds{quantile="0.5"} 1.3663e-05',
      'empty_labels{} 7',
    ].join('\n');
    const { samples, families } = parseExposition(text);
    assert.deepEqual(families.get('http_requests_total'), { help: 'The total number of HTTP requests.', type: 'counter' });
    assert.deepEqual(samples[0], { name: 'http_requests_total', labels: { method: 'post', code: '200' }, value: 1027, timestamp: 1395066363000 });
    assert.equal(samples[1].value, 3);
    assert.deepEqual(samples[2], { name: 'metric_without_timestamp_and_labels', labels: {}, value: 12.47 });
    assert.equal(samples[3].value, 1.3663e-5);
    assert.deepEqual(samples[4].labels, {});
    assert.equal(samples.length, 5);
  });

  test('unescapes label values and keeps commas, braces and spaces inside quotes', () => {
    const { samples } = parseExposition('msdos_file_access_time_seconds{path="C:\\\\DIR\\\\FILE.TXT",error="Cannot find file:\\n\\"FILE.TXT\\"",odd="a, b} c"} 1.458255915e9\n');
    assert.deepEqual(samples[0].labels, { path: 'C:\\DIR\\FILE.TXT', error: 'Cannot find file:\n"FILE.TXT"', odd: 'a, b} c' });
    assert.equal(samples[0].value, 1458255915);
  });

  test('reads NaN and Inf in any case, as Prometheus does (prom-client writes Nan for an empty event-loop lag)', () => {
    const { samples } = parseExposition('nodejs_eventloop_lag_seconds Nan\nbig inf\nsmall -INF\n');
    assert.ok(Number.isNaN(samples[0].value));
    assert.equal(samples[1].value, Infinity);
    assert.equal(samples[2].value, -Infinity);
  });

  test('reads +Inf, -Inf and NaN and a trailing comma in the label set', () => {
    const { samples } = parseExposition('h_bucket{le="+Inf",} +Inf\nlow -Inf\nnothing NaN\n');
    assert.equal(samples[0].value, Infinity);
    assert.deepEqual(samples[0].labels, { le: '+Inf' });
    assert.equal(samples[1].value, -Infinity);
    assert.ok(Number.isNaN(samples[2].value));
  });

  test('rejects malformed lines naming the line number', () => {
    const bad = ['ok 1\nbroken{a="x" 1\n', 'ok 1\n\nnovalue\n', 'x{a="1",a="2"} 1', 'x{a="\\q"} 1', 'x 12abc', 'x{a=1} 2', 'x 1 1.5'];
    const lines = [2, 3, 1, 1, 1, 1, 1];
    bad.forEach((text, i) => {
      assert.throws(() => parseExposition(text), (err: unknown) => err instanceof ExpositionParseError && err.line === lines[i], text);
    });
  });
});
