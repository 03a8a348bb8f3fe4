/**
 * The snapshot differential's scenarios: each lives in its own namespace (its id) and is a list
 * of stages; a stage's steps are sent, then the world converges before the next stage. Steps
 * whose object depends on what an earlier stage made (a content's driver handle, a content's
 * name) are resolved against the live state when they are sent. A scenario with `holdCreateSnapshot`
 * has the driver's CreateSnapshot answers held by the CSI proxy during those stages (the snapshot
 * is cut, the caller has not heard) and released after the last of them converged; it runs on its
 * own, since the hold is the driver's, not the namespace's.
 */
import { ANN_ALLOW_VOLUME_MODE_CHANGE, FINALIZER_PVC_AS_SNAPSHOT_SOURCE, SNAPSHOT_API_VERSION } from '@pv-controller/kube/snapshot-types.js';
import { CSI_CLASS } from '../../../bench/csi/world.js';
import { MOCK_DRIVER_NAME } from '../../../bench/csi/mock-driver.js';
import { RETAIN_SNAPSHOT_CLASS } from '../../../bench/csi/snapshot-world.js';

type Json = Record<string, unknown>;

/** Reads one object of the live state (undefined when it does not exist). */
export type Lookup = (path: string) => Promise<Json | undefined>;
/** Lists a collection of the live state. */
export type Listing = (path: string) => Promise<Json[]>;

export type Step =
  | { kind: 'create'; path: string; body: Json }
  | { kind: 'delete'; path: string }
  /** An object made from the live state when the step runs. */
  | { kind: 'create-from'; path: string; body: (list: Listing, get: Lookup) => Promise<Json> }
  /** Adds annotations to the object `path` resolves to (GET, then PUT with its resourceVersion). */
  | { kind: 'annotate'; path: (get: Lookup) => Promise<string>; annotations: Record<string, string> };

/** What an upstream run of the scenario must show (the harness's own check that it ran), given its view after each stage. */
export type Expectation = (stages: ScenarioView[]) => string | undefined;

/** The recorded objects of one scenario (see record.ts). */
export interface ScenarioView {
  snapshots: Record<string, Json>;
  contents: Record<string, Json>;
  claims: Record<string, Json>;
  volumes: Record<string, Json>;
  events: string[];
  driverSnapshots: number;
  /** Steps that could not be made, with why. */
  failedSteps: string[];
}

export interface SnapshotScenario {
  id: string;
  title: string;
  stages: Step[][];
  /** The stages (first and last index) during which the driver's CreateSnapshot answers are held. */
  holdCreateSnapshot?: readonly [number, number];
  /** Checked against the upstream side's final state. */
  expect: Expectation;
}

export const SNAPSHOTS = (ns: string): string => `/apis/${SNAPSHOT_API_VERSION}/namespaces/${ns}/volumesnapshots`;
export const CONTENTS = `/apis/${SNAPSHOT_API_VERSION}/volumesnapshotcontents`;
const claims = (ns: string): string => `/api/v1/namespaces/${ns}/persistentvolumeclaims`;

interface ClaimOpts {
  size?: string;
  cls?: string;
  volumeMode?: 'Filesystem' | 'Block';
  dataSource?: Json;
  dataSourceRef?: Json;
}

function claim(ns: string, name: string, o: ClaimOpts = {}): Step {
  const spec: Json = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: o.size ?? '1Gi' } }, storageClassName: o.cls ?? CSI_CLASS };
  if (o.volumeMode) spec.volumeMode = o.volumeMode;
  if (o.dataSource) spec.dataSource = o.dataSource;
  if (o.dataSourceRef) spec.dataSourceRef = o.dataSourceRef;
  return { kind: 'create', path: claims(ns), body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec } };
}

function snapshot(ns: string, name: string, source: Json, cls?: string): Step {
  const spec: Json = { source };
  if (cls !== undefined) spec.volumeSnapshotClassName = cls;
  return { kind: 'create', path: SNAPSHOTS(ns), body: { apiVersion: SNAPSHOT_API_VERSION, kind: 'VolumeSnapshot', metadata: { name }, spec } };
}

const ofClaim = (ns: string, name: string, cls?: string): Step => snapshot(ns, name, { persistentVolumeClaimName: 'src' }, cls);
const fromSnapshot = (name: string): Json => ({ apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name });
const deleteSnapshot = (ns: string, name: string): Step => ({ kind: 'delete', path: `${SNAPSHOTS(ns)}/${name}` });

/** The content a snapshot of `ns` is bound to, by its status. */
async function boundContent(get: Lookup, ns: string, snap: string): Promise<string> {
  const vs = await get(`${SNAPSHOTS(ns)}/${snap}`);
  const name = (vs?.status as Json | undefined)?.boundVolumeSnapshotContentName;
  if (typeof name !== 'string') throw new Error(`${ns}/${snap} is bound to no content`);
  return name;
}

/** A pre-provisioned content for the driver snapshot a retained content of `ns/orig` names, for `ns/imported`. */
function importRetained(ns: string): Step {
  return {
    kind: 'create-from',
    path: CONTENTS,
    body: async (list) => {
      const retained = (await list(CONTENTS)).find((c) => {
        const ref = (c.spec as Json).volumeSnapshotRef as Json;
        return ref.namespace === ns && ref.name === 'orig';
      });
      const handle = (retained?.status as Json | undefined)?.snapshotHandle;
      if (typeof handle !== 'string') throw new Error(`no retained content with a snapshot handle for ${ns}/orig`);
      return {
        apiVersion: SNAPSHOT_API_VERSION,
        kind: 'VolumeSnapshotContent',
        metadata: { name: `${ns}-imported` },
        spec: { deletionPolicy: 'Retain', driver: MOCK_DRIVER_NAME, source: { snapshotHandle: handle }, volumeSnapshotRef: { namespace: ns, name: 'imported' } },
      };
    },
  };
}

type State = ScenarioView;
const last = (views: ScenarioView[]): ScenarioView => views[views.length - 1]!;
/** An expectation over the scenario's final view. */
const atEnd = (f: (s: State) => string | undefined): Expectation => (views) => f(last(views));
const status = (o: Json | undefined): Json => (o?.status as Json | undefined) ?? {};
const ready = (s: State, name: string): boolean => status(s.snapshots[name]).readyToUse === true;
const phase = (s: State, name: string): unknown => status(s.claims[name]).phase;
const warned = (s: State, claimName: string, reason: string): boolean => s.events.some((e) => e.startsWith(`PersistentVolumeClaim ${claimName}: Warning ${reason}:`));
const check = (ok: boolean, what: string): string | undefined => (ok ? undefined : what);

export const SNAPSHOT_SCENARIOS: SnapshotScenario[] = [
  {
    id: 'sd-default-class', title: 'a dynamic snapshot of a bound claim, with the default class',
    stages: [[claim('sd-default-class', 'src')], [ofClaim('sd-default-class', 'snap')]],
    expect: atEnd((s) => check(ready(s, 'snap') && s.driverSnapshots === 1, 'snap is ready and the driver holds one snapshot')),
  },
  {
    id: 'sd-named-class', title: 'a dynamic snapshot of a bound claim, naming a (Retain) class',
    stages: [[claim('sd-named-class', 'src')], [ofClaim('sd-named-class', 'snap', RETAIN_SNAPSHOT_CLASS)]],
    expect: atEnd((s) => check(ready(s, 'snap'), 'snap is ready')),
  },
  {
    id: 'sd-preprovisioned', title: 'a pre-provisioned content (a retained snapshot re-imported) bound by a snapshot naming it',
    stages: [
      [claim('sd-preprovisioned', 'src')],
      [ofClaim('sd-preprovisioned', 'orig', RETAIN_SNAPSHOT_CLASS)],
      [deleteSnapshot('sd-preprovisioned', 'orig')],
      [importRetained('sd-preprovisioned'), snapshot('sd-preprovisioned', 'imported', { volumeSnapshotContentName: 'sd-preprovisioned-imported' })],
    ],
    expect: atEnd((s) => check(ready(s, 'imported'), 'imported is ready')),
  },
  {
    id: 'sd-pending-claim', title: 'a snapshot of a claim that stays Pending (no such class) is not cut',
    stages: [[claim('sd-pending-claim', 'src', { cls: 'sd-pending-claim-none' })], [ofClaim('sd-pending-claim', 'snap')]],
    expect: atEnd((s) => check(!ready(s, 'snap') && s.driverSnapshots === 0, 'snap is not ready and nothing was cut')),
  },
  {
    id: 'sd-missing-claim', title: 'a snapshot of a claim that does not exist',
    stages: [[ofClaim('sd-missing-claim', 'snap')]],
    expect: atEnd((s) => check(!ready(s, 'snap') && Object.keys(s.contents).length === 0, 'snap is not ready and has no content')),
  },
  {
    id: 'sd-missing-class', title: 'a snapshot naming a class that does not exist',
    stages: [[claim('sd-missing-class', 'src')], [ofClaim('sd-missing-class', 'snap', 'sd-missing-class-none')]],
    expect: atEnd((s) => check(!ready(s, 'snap') && s.driverSnapshots === 0, 'snap is not ready and nothing was cut')),
  },
  {
    id: 'sd-delete-policy', title: 'a snapshot of a Delete class deleted: its content and the driver snapshot go',
    stages: [[claim('sd-delete-policy', 'src')], [ofClaim('sd-delete-policy', 'snap')], [deleteSnapshot('sd-delete-policy', 'snap')]],
    expect: atEnd((s) => check(Object.keys(s.snapshots).length === 0 && Object.keys(s.contents).length === 0 && s.driverSnapshots === 0, 'snapshot, content and driver snapshot are gone')),
  },
  {
    id: 'sd-retain-policy', title: 'a snapshot of a Retain class deleted: its content and the driver snapshot stay',
    stages: [[claim('sd-retain-policy', 'src')], [ofClaim('sd-retain-policy', 'snap', RETAIN_SNAPSHOT_CLASS)], [deleteSnapshot('sd-retain-policy', 'snap')]],
    expect: atEnd((s) => check(Object.keys(s.snapshots).length === 0 && Object.keys(s.contents).length === 1 && s.driverSnapshots === 1, 'the content and the driver snapshot stay')),
  },
  {
    id: 'sd-claim-deleted-mid-cut', title: 'the claim deleted while its snapshot is being cut (CreateSnapshot answer held) waits for the snapshot',
    stages: [[claim('sd-claim-deleted-mid-cut', 'src')], [ofClaim('sd-claim-deleted-mid-cut', 'snap')], [{ kind: 'delete', path: `${claims('sd-claim-deleted-mid-cut')}/src` }], []],
    // Held from the snapshot's creation until the claim's deletion converged: the claim is deleted while the cut is surely under way.
    holdCreateSnapshot: [1, 2],
    expect: (views) => {
      const held = views[2]?.claims.src;
      const finalizers = (held?.finalizers as string[] | undefined) ?? [];
      if (held?.terminating !== true || !finalizers.includes(FINALIZER_PVC_AS_SNAPSHOT_SOURCE)) return 'src terminating and kept by the snapshot-source finalizer while the answer is held';
      return check(ready(last(views), 'snap') && last(views).claims.src === undefined, 'snap is ready and the claim is gone once the answer came');
    },
  },
  {
    id: 'sd-restore-equal', title: 'a claim restored from a ready snapshot, of the same size',
    stages: [[claim('sd-restore-equal', 'src')], [ofClaim('sd-restore-equal', 'snap')], [claim('sd-restore-equal', 'restored', { dataSource: fromSnapshot('snap') })]],
    expect: atEnd((s) => check(phase(s, 'restored') === 'Bound', 'restored is Bound')),
  },
  {
    id: 'sd-restore-larger', title: 'a claim restored from a ready snapshot, larger than it',
    stages: [[claim('sd-restore-larger', 'src')], [ofClaim('sd-restore-larger', 'snap')], [claim('sd-restore-larger', 'restored', { size: '2Gi', dataSource: fromSnapshot('snap') })]],
    expect: atEnd((s) => check(phase(s, 'restored') === 'Bound', 'restored is Bound')),
  },
  {
    id: 'sd-restore-smaller', title: 'a claim restored from a ready snapshot, smaller than it, is refused',
    stages: [[claim('sd-restore-smaller', 'src', { size: '2Gi' })], [ofClaim('sd-restore-smaller', 'snap')], [claim('sd-restore-smaller', 'restored', { dataSource: fromSnapshot('snap') })]],
    expect: atEnd((s) => check(phase(s, 'restored') === 'Pending' && warned(s, 'restored', 'ProvisioningFailed'), 'restored stays Pending, with ProvisioningFailed')),
  },
  {
    id: 'sd-clone', title: 'a clone of a bound claim',
    stages: [[claim('sd-clone', 'src')], [claim('sd-clone', 'clone', { dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } })]],
    expect: atEnd((s) => check(phase(s, 'clone') === 'Bound', 'clone is Bound')),
  },
  {
    id: 'sd-mode-change-refused', title: 'a Block claim restored from a Filesystem snapshot is refused (KEP-3141)',
    stages: [[claim('sd-mode-change-refused', 'src')], [ofClaim('sd-mode-change-refused', 'snap')], [claim('sd-mode-change-refused', 'restored', { volumeMode: 'Block', dataSource: fromSnapshot('snap') })]],
    expect: atEnd((s) => check(phase(s, 'restored') === 'Pending' && warned(s, 'restored', 'ProvisioningFailed'), 'restored stays Pending, with ProvisioningFailed')),
  },
  {
    id: 'sd-mode-change-allowed', title: "a Block claim restored from a Filesystem snapshot whose content allows the mode change",
    stages: [
      [claim('sd-mode-change-allowed', 'src')],
      [ofClaim('sd-mode-change-allowed', 'snap')],
      [{ kind: 'annotate', path: async (get) => `${CONTENTS}/${await boundContent(get, 'sd-mode-change-allowed', 'snap')}`, annotations: { [ANN_ALLOW_VOLUME_MODE_CHANGE]: 'true' } }],
      [claim('sd-mode-change-allowed', 'restored', { volumeMode: 'Block', dataSource: fromSnapshot('snap') })],
    ],
    expect: atEnd((s) => check(phase(s, 'restored') === 'Bound', 'restored is Bound')),
  },
  {
    id: 'sd-populator', title: 'a claim whose dataSourceRef names a kind no one here knows is left to its populator',
    stages: [[claim('sd-populator', 'p', { dataSourceRef: { apiGroup: 'populator.example.com', kind: 'Widget', name: 'w' } })]],
    expect: atEnd((s) => check(phase(s, 'p') === 'Pending' && Object.keys(s.volumes).length === 0, 'p stays Pending with no volume')),
  },
];
