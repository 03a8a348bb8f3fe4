/**
 * The local-path side by side's pure parts: local-path-provisioner's ConfigMap and command line
 * as the harness writes them, the workload, the pods' CPU from kubelet cgroups (v1 and v2
 * layouts, cgroupfs and systemd names), what counts as left behind, and the watch bookkeeping.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { cgroupCpuMs, cpuWithChildrenMs, findKubepods, findPodCgroup, helperCpuMs, podCgroupMatches } from '../../bench/local-path/accounting.js';
import { leftoverCount, loopDevicesUnder, mountsUnder } from '../../bench/local-path/leftovers.js';
import { LOCAL_PATH_PROVISIONER, localPathArgs, localPathConfig, storageClass, workloadClaim, workloadName, workloadPod } from '../../bench/local-path/objects.js';
import { ratioRows, sideRow } from '../../bench/local-path/rows.js';
import { cpuPerVolume, type SideResult } from '../../bench/local-path/run-side.js';
import type { ResultRow } from '../../bench/scenario.js';
import { applyLine } from '../../bench/local-path/tracker.js';

const scratch = mkdtempSync(join(tmpdir(), 'local-path-unit-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe('local-path-provisioner configuration written by the harness', () => {
  it('maps every node to the root, with setup and teardown scripts that only touch VOL_DIR', () => {
    const data = localPathConfig('/var/lib/bench/lp', 'img');
    const config = JSON.parse(data['config.json']) as { nodePathMap: Array<{ node: string; paths: string[] }>; cmdTimeoutSeconds: number };
    assert.deepEqual(config.nodePathMap, [{ node: 'DEFAULT_PATH_FOR_NON_LISTED_NODES', paths: ['/var/lib/bench/lp'] }]);
    assert.ok(config.cmdTimeoutSeconds > 0);
    assert.match(data.setup, /^#!\/bin\/sh\nset -eu\nmkdir -m 0777 -p "\$VOL_DIR"\n$/);
    assert.match(data.teardown, /^#!\/bin\/sh\nset -eu\nrm -rf "\$VOL_DIR"\n$/);
  });

  it('gives helper pods a template of the node\'s image that never pulls and mounts no token', () => {
    const pod = parse(localPathConfig('/r', 'localhost/a/busybox:1.35')['helperPod.yaml']) as {
      kind: string;
      spec: { automountServiceAccountToken: boolean; hostNetwork: boolean; containers: Array<{ image: string; imagePullPolicy: string }> };
    };
    assert.equal(pod.spec.containers[0].image, 'localhost/a/busybox:1.35');
    assert.equal(pod.kind, 'Pod');
    assert.equal(pod.spec.automountServiceAccountToken, false);
    assert.equal(pod.spec.hostNetwork, true);
    assert.equal(pod.spec.containers[0].imagePullPolicy, 'Never');
  });

  it('runs the provisioner out of cluster with the image and worker count given', () => {
    const args = localPathArgs('/k/kubeconfig', 'localhost/busybox:1', 4);
    assert.equal(args[0], 'start');
    const flag = (name: string): string => args[args.indexOf(name) + 1];
    assert.equal(flag('--kubeconfig'), '/k/kubeconfig');
    assert.equal(flag('--helper-image'), 'localhost/busybox:1');
    assert.equal(flag('--worker-threads'), '4');
    assert.equal(flag('--provisioner-name'), LOCAL_PATH_PROVISIONER);
  });

  it('classes: WaitForFirstConsumer and Delete on every side; only ours-sized asks for images', () => {
    for (const side of ['local-path', 'ours-dir', 'ours-sized'] as const) {
      const sc = storageClass(side) as { volumeBindingMode: string; reclaimPolicy: string; parameters?: Record<string, string> };
      assert.equal(sc.volumeBindingMode, 'WaitForFirstConsumer');
      assert.equal(sc.reclaimPolicy, 'Delete');
      assert.equal(sc.parameters?.sizing, side === 'ours-sized' ? 'image' : undefined);
    }
  });

  it('workload: claim and pod share a name, the pod mounts it, never restarts and is pinned to the node', () => {
    const name = workloadName('ours-dir', 7);
    assert.equal(name, 'ours-dir-0007');
    const claim = workloadClaim('ours-dir', name) as { spec: { storageClassName: string } };
    assert.equal(claim.spec.storageClassName, 'bench-ours-dir');
    const pod = workloadPod('ours-dir', name, 'img', 'node-1') as {
      spec: { restartPolicy: string; hostNetwork: boolean; nodeSelector: Record<string, string>; volumes: Array<{ persistentVolumeClaim: { claimName: string } }>; containers: Array<{ command: string[] }> };
    };
    assert.equal(pod.spec.restartPolicy, 'Never');
    assert.equal(pod.spec.hostNetwork, true);
    assert.equal(pod.spec.nodeSelector['kubernetes.io/hostname'], 'node-1');
    assert.equal(pod.spec.volumes[0].persistentVolumeClaim.claimName, name);
    assert.match(pod.spec.containers[0].command[2], /> \/data\/written && sync \|\| exit 1; trap "exit 0" TERM; sleep \d+ & wait$/);
  });
});

describe('pods CPU from the kubelet cgroups', () => {
  it('finds kubepods under cgroup v1 cpuacct (cgroupfs names) and a pod under its QoS class', () => {
    const root = join(scratch, 'v1');
    const besteffort = join(root, 'cpu,cpuacct', 'kubepods', 'besteffort');
    mkdirSync(join(besteffort, 'pod1234-ab'), { recursive: true });
    writeFileSync(join(root, 'cpu,cpuacct', 'kubepods', 'cpuacct.usage'), '2500000000\n');
    writeFileSync(join(besteffort, 'pod1234-ab', 'cpuacct.usage'), '1500000\n');
    const layout = findKubepods(root);
    assert.deepEqual(layout, { version: 1, kubepods: join(root, 'cpu,cpuacct', 'kubepods') });
    assert.equal(cgroupCpuMs(1, layout.kubepods), 2500);
    const pod = findPodCgroup(layout, '1234-ab');
    assert.equal(pod, join(besteffort, 'pod1234-ab'));
    assert.equal(cgroupCpuMs(1, pod), 1.5);
    assert.equal(findPodCgroup(layout, 'nope'), undefined);
  });

  it('finds kubepods.slice under cgroup v2 (systemd names) and reads usage_usec', () => {
    const root = join(scratch, 'v2');
    const slice = join(root, 'kubepods.slice');
    const pod = join(slice, 'kubepods-burstable.slice', 'kubepods-burstable-pod12_34.slice');
    mkdirSync(pod, { recursive: true });
    writeFileSync(join(slice, 'cpu.stat'), 'usage_usec 4000\nuser_usec 3000\nsystem_usec 1000\n');
    writeFileSync(join(pod, 'cpu.stat'), 'usage_usec 250\n');
    const layout = findKubepods(root);
    assert.deepEqual(layout, { version: 2, kubepods: slice });
    assert.equal(cgroupCpuMs(2, slice), 4);
    assert.equal(findPodCgroup(layout, '12-34'), pod);
    assert.equal(cgroupCpuMs(2, pod), 0.25);
    assert.equal(podCgroupMatches('kubepods-besteffort-pod12_34.slice', '12-34'), true);
    assert.equal(podCgroupMatches('pod12-345', '12-34'), false);
  });

  it('looks below the kubelet\'s cgroup root when it has one of its own', () => {
    const root = join(scratch, 'v1-root');
    const kubepods = join(root, 'cpuacct', 'pv-nodes-1', 'node-1', 'kubepods');
    mkdirSync(join(kubepods, 'besteffort'), { recursive: true });
    mkdirSync(join(root, 'cpuacct', 'kubepods'), { recursive: true });
    writeFileSync(join(kubepods, 'cpuacct.usage'), '1000000\n');
    writeFileSync(join(root, 'cpuacct', 'kubepods', 'cpuacct.usage'), '5\n');
    assert.deepEqual(findKubepods(root, '/pv-nodes-1/node-1'), { version: 1, kubepods });
  });

  it('no kubelet cgroup: no layout, and unreadable usage is null rather than 0', () => {
    assert.equal(findKubepods(join(scratch, 'missing')), undefined);
    assert.equal(cgroupCpuMs(1, join(scratch, 'missing')), null);
  });

  it('a provisioner\'s CPU includes the children it waited for (mkfs, losetup, mount)', () => {
    // pid (comm with ) spaces) state ppid ... utime=14 stime=15 cutime=16 cstime=17 (proc(5)), in clock ticks.
    const stat = `42 (node agent) x) S 1 42 42 0 -1 4194560 100 0 0 0 ${[30, 20, 40, 10].join(' ')} 20 0 11 0 100 1000 200`;
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    assert.equal(cpuWithChildrenMs(42, stat), (100 * 1000) / ticks);
    assert.equal(cpuWithChildrenMs(2 ** 30), null);
  });

  it('helper CPU is the growth of kubepods less the workload pods, never negative', () => {
    assert.equal(helperCpuMs(1000, 1600, [100, 200]), 300);
    assert.equal(helperCpuMs(1000, 1100, [100, 200]), 0);
  });

  it('CPU per volume: local-path counts its helper pods, and is unknown when they are', () => {
    assert.equal(cpuPerVolume('local-path', 100, 300, 4), 100);
    assert.equal(cpuPerVolume('local-path', 100, null, 4), null);
    assert.equal(cpuPerVolume('ours-dir', 100, 999, 4), 25);
    assert.equal(cpuPerVolume('ours-sized', null, 0, 4), null);
  });
});

describe('what a run left behind', () => {
  it('mounts at or below the root, with mountinfo escapes undone, and nothing beside it', () => {
    const info = [
      '22 1 8:1 / / rw - ext4 /dev/sda1 rw',
      '40 22 7:0 / /bench/root/v1 rw - ext4 /dev/loop0 rw',
      '41 22 7:1 / /bench/root\\040x/v2 rw - ext4 /dev/loop1 rw',
      '42 22 7:2 / /bench/rootless rw - ext4 /dev/loop2 rw',
    ].join('\n');
    assert.deepEqual(mountsUnder(info, '/bench/root'), ['/bench/root/v1']);
    assert.deepEqual(mountsUnder(info, '/bench/root x'), ['/bench/root x/v2']);
  });

  it('loop devices whose backing file is under the root', () => {
    const sys = join(scratch, 'sys-block');
    for (const [dev, file] of [['loop0', '/bench/root/.pv-controller-images/a.img'], ['loop1', '/elsewhere/b.img'], ['sda', '']]) {
      mkdirSync(join(sys, dev, 'loop'), { recursive: true });
      if (file) writeFileSync(join(sys, dev, 'loop', 'backing_file'), `${file}\n`);
    }
    assert.deepEqual(loopDevicesUnder('/bench/root', sys), ['loop0']);
    assert.equal(leftoverCount({ entries: ['a'], images: [], mounts: ['m'], loopDevices: ['loop0'] }), 3);
  });
});

describe('watch bookkeeping', () => {
  it('first Bound and first Running count; Failed is a failure with its reason; DELETED and junk are ignored', () => {
    const t = { bound: new Map<string, number>(), running: new Map<string, number>(), podUid: new Map<string, string>(), failed: new Map<string, string>() };
    const ev = (type: string, name: string, phase: string, extra: Record<string, unknown> = {}): string => JSON.stringify({ type, object: { metadata: { name, uid: `u-${name}` }, status: { phase, ...extra } } });
    applyLine(t, 'claim', ev('MODIFIED', 'a', 'Pending'), 1);
    applyLine(t, 'claim', ev('MODIFIED', 'a', 'Bound'), 2);
    applyLine(t, 'claim', ev('MODIFIED', 'a', 'Bound'), 3);
    applyLine(t, 'pod', ev('MODIFIED', 'a', 'Running'), 4);
    applyLine(t, 'pod', ev('MODIFIED', 'b', 'Failed', { reason: 'Error', message: 'exit 1' }), 5);
    applyLine(t, 'pod', ev('DELETED', 'c', 'Running'), 6);
    applyLine(t, 'pod', 'not json', 7);
    assert.deepEqual([...t.bound], [['a', 2]]);
    assert.deepEqual([...t.running], [['a', 4]]);
    assert.deepEqual([...t.failed], [['b', 'Error: exit 1']]);
    assert.equal(t.podUid.get('a'), 'u-a');
    assert.equal(t.running.has('c'), false);
  });
});

describe('the side by side table', () => {
  const run = (side: 'local-path' | 'ours-dir' | 'ours-sized', over: Partial<SideResult> = {}): SideResult => ({
    side, n: 10, waves: 1, boundPerSecond: 1, boundP50Ms: 100, runningP50Ms: 200, runningP99Ms: 300, deletePerSecond: 1,
    provisionerCpuMs: 100, helperCpuMs: 0, runtimeCpuMs: 0, cpuPerVolumeMs: 10, rssStartBytes: 50 * 2 ** 20, rssPeakBytes: 60 * 2 ** 20,
    leftovers: { entries: [], images: [], mounts: [], loopDevices: [] }, leftoverCount: 0, ...over,
  });

  it('ratios are taken within a repetition, then their median; targets ≥ 10×, ≤ 0.5×, 0 left', () => {
    const bySide = {
      'local-path': [run('local-path', { boundPerSecond: 1, cpuPerVolumeMs: 40 }), run('local-path', { boundPerSecond: 2, cpuPerVolumeMs: 40 })],
      'ours-dir': [run('ours-dir', { boundPerSecond: 12, cpuPerVolumeMs: 10 }), run('ours-dir', { boundPerSecond: 30, cpuPerVolumeMs: 10 })],
      'ours-sized': [run('ours-sized', { boundPerSecond: 5, cpuPerVolumeMs: 30 }), run('ours-sized', { boundPerSecond: 8, cpuPerVolumeMs: 30, leftoverCount: 1 })],
    };
    const rows = ratioRows(10, bySide);
    const row = (label: string): ResultRow => rows.find((r) => r.label === label)!;
    assert.equal(row('ours-dir / local-path, 10 claims: claims/s to Bound').measured.split(' ')[0], '12.00×');
    assert.equal(row('ours-dir / local-path, 10 claims: claims/s to Bound').target?.pass, true);
    assert.equal(row('ours-sized / local-path, 10 claims: claims/s to Bound').target?.pass, false);
    assert.equal(row('ours-dir / local-path, 10 claims: CPU per volume').measured, '0.25×');
    assert.equal(row('ours-sized / local-path, 10 claims: CPU per volume').target?.pass, false);
    assert.equal(row('ours-sized, 10 claims: left on disk after deletes').target?.pass, false);
    assert.equal(row('ours-dir, 10 claims: left on disk after deletes').target?.pass, true);
  });

  it('a side row carries the medians and says where local-path\'s helper pods are counted', () => {
    const lp = sideRow(10, 'local-path', [run('local-path', { helperCpuMs: 50 })]);
    assert.match(lp.measured, /^1\.00 claims\/s to Bound; create→pod Running p50 200 ms, p99 300 ms; CPU\/volume 10\.0 ms \(provisioner 10\.0 \+ helper pods 5\.0\); kubelet\+containerd 0\.0 ms\/volume; RSS peak 60 MB \(\+1,024\.0 KiB\/volume\); delete 1\.00 claims\/s; left on disk 0$/);
    assert.doesNotMatch(sideRow(10, 'ours-dir', [run('ours-dir')]).measured, /helper/);
  });
});
