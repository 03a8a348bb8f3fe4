import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommanderError } from 'commander';
import { parseBenchArgs } from '../../bench/options.js';
import { REAL_CLUSTER_SCENARIOS, SCENARIOS, scenarioSet, selectScenarios } from '../../bench/scenarios/index.js';

const argv = (...args: string[]): string[] => ['node', 'bench', ...args];
const names = SCENARIOS.map((s) => s.name);

describe('bench options', () => {
  it('defaults: all scenarios, both storages, 5 repetitions; --quick lowers repetitions to 3', () => {
    const { options } = parseBenchArgs(argv(), names);
    assert.deepEqual(options.scenarios, []);
    assert.deepEqual(options.storages, ['memory', 'sqlite']);
    assert.equal(options.repetitions, 5);
    assert.equal(parseBenchArgs(argv('--quick'), names).options.repetitions, 3);
  });

  it('parses scenario lists, sizes, storage, kubeconfig and cpu-prof', () => {
    const { options } = parseBenchArgs(
      argv('--scenario', 'bind,apiserver', '--n', '1000,10000', '--storage', 'sqlite', '--kubeconfig', 'kc.yaml', '--cpu-prof'),
      names,
    );
    assert.deepEqual(options.scenarios, ['bind', 'apiserver']);
    assert.deepEqual(options.sizes, [1000, 10000]);
    assert.deepEqual(options.storages, ['sqlite']);
    assert.match(options.kubeconfig ?? '', /\/kc\.yaml$/);
    assert.equal(options.cpuProf, true);
  });

  it('--provision-n sizes the provision scenario on its own; without it provision follows --n', () => {
    const { options } = parseBenchArgs(argv('--n', '1000,10000', '--provision-n', '1000,10000'), names);
    assert.deepEqual(options.provisionSizes, [1000, 10000]);
    assert.equal(parseBenchArgs(argv('--n', '500'), names).options.provisionSizes, undefined);
    assert.throws(() => parseBenchArgs(argv('--provision-n', '0'), names), CommanderError);
  });

  it('--no-floor skips the write floor; by default it runs', () => {
    assert.equal(parseBenchArgs(argv(), names).options.noFloor, false);
    assert.equal(parseBenchArgs(argv('--scenario', 'bind', '--n', '100000', '--no-floor'), names).options.noFloor, true);
  });

  it('rejects an unknown storage and a non-numeric size', () => {
    assert.throws(() => parseBenchArgs(argv('--storage', 'etcd'), names), CommanderError);
    assert.throws(() => parseBenchArgs(argv('--n', 'ten'), names), CommanderError);
  });

  it('scenario selection accepts aliases, keeps run order and rejects unknown names', () => {
    assert.deepEqual(selectScenarios(['rss', 'matching', 'floor']).map((s) => s.name), ['matching', 'bind']);
    assert.throws(() => selectScenarios(['nope']), /unknown scenario "nope"/);
  });

  it('--real-cluster runs the side-by-side scenarios instead of the default set, selectable by name or alias', () => {
    assert.equal(parseBenchArgs(argv(), names).options.realCluster, false);
    assert.equal(parseBenchArgs(argv('--real-cluster', '--quick'), names).options.realCluster, true);
    assert.deepEqual(scenarioSet(true).map((s) => s.name), ['real-bind', 'real-provision', 'real-apiserver', 'real-memory']);
    assert.ok(!SCENARIOS.some((s) => REAL_CLUSTER_SCENARIOS.includes(s)), 'a plain `npm run bench` starts no kube-apiserver');
    assert.deepEqual(selectScenarios(['kcm-provision', 'real-bind'], scenarioSet(true)).map((s) => s.name), ['real-bind', 'real-provision']);
    assert.throws(() => selectScenarios(['bind'], scenarioSet(true)), /unknown scenario "bind"; known: real-bind/);
  });

  it('rejects --real-cluster beside --kubeconfig: one starts its own control plane, the other names an existing one', () => {
    assert.throws(() => parseBenchArgs(argv('--real-cluster', '--kubeconfig', 'kc.yaml'), names), CommanderError);
  });
});
