/**
 * The corpus's long lists (issue 24): owner references, finalizers, access modes, topology terms,
 * tolerations and mount options by the thousand, through create, update and every patch type, on
 * PVs, claims, pods and classes; and forged continue tokens. Each is refused or a dry run.
 */
import {
  claimsPath, controllerRefs, emptyRefs, forgedContinueToken, ownerRefs, podsPath, podWith, PVS, pvTextWithSpecArray, pvWith,
  repeatedJsonArray, SCS, storageClassWith, tolerations, topologyTerms, upstreamContinueToken,
} from './large-shapes.js';
import type { HostileRequest } from './corpus.js';

/** The corpus's namespace and claim (corpus.ts creates them). */
const NS = 'hostile-ns';
const CLAIM = `${claimsPath(NS)}/hostile-claim?dryRun=All`;
const json = (v: unknown): string => JSON.stringify(v);
const dry = (path: string): string => `${path}?dryRun=All`;
const post = (name: string, path: string, body: string): HostileRequest => ({ name, method: 'POST', path: dry(path), body, contentType: 'application/json' });
const patch = (name: string, body: string, contentType: string): HostileRequest => ({ name, method: 'PATCH', path: CLAIM, body, contentType });
const list = (name: string, token: string): HostileRequest => ({ name, method: 'GET', path: `${PVS}?limit=1&continue=${token}` });

export const LONG_LISTS: HostileRequest[] = [
  post('pv-3700-controller-refs', PVS, json(pvWith('hostile-refs', {}, { ownerReferences: controllerRefs(3700) }))),
  post('pv-100k-empty-owner-refs', PVS, json(pvWith('hostile-refs', {}, { ownerReferences: emptyRefs(100_000) }))),
  post('pv-repeated-owner-refs', PVS, json(pvWith('hostile-refs', {}, { ownerReferences: [...ownerRefs(3), ...ownerRefs(3)] }))),
  post('pv-three-controller-refs', PVS, json(pvWith('hostile-refs', {}, { ownerReferences: ownerRefs(3, 3) }))),
  post('pv-150k-empty-finalizers', PVS, json(pvWith('hostile-fins', {}, { finalizers: Array(150_000).fill('') }))),
  post('pv-1m-empty-access-modes', PVS, pvTextWithSpecArray('hostile-modes', 'accessModes', repeatedJsonArray('', 1_000_000))),
  post('pv-1m-empty-mount-options', PVS, pvTextWithSpecArray('hostile-mounts', 'mountOptions', repeatedJsonArray('', 1_000_000))),
  post('sc-52000-topology-terms', SCS, json(storageClassWith('hostile-topo', { allowedTopologies: topologyTerms(52_000) }))),
  post('sc-repeated-and-empty-topology-terms', SCS, json(storageClassWith('hostile-topo', { allowedTopologies: [{}, ...topologyTerms(2), ...topologyTerms(3, false)] }))),
  post('pod-20000-tolerations', podsPath(NS), json(podWith('hostile-pod', NS, { tolerations: tolerations(20_000) }))),
  patch('claim-merge-patch-3700-controller-refs', json({ metadata: { ownerReferences: controllerRefs(3700) } }), 'application/merge-patch+json'),
  patch('claim-strategic-patch-empty-finalizers', json({ metadata: { finalizers: Array(100_000).fill('') } }), 'application/strategic-merge-patch+json'),
  patch('claim-json-patch-empty-access-modes', json([{ op: 'replace', path: '/spec/accessModes', value: Array(100_000).fill('') }]), 'application/json-patch+json'),
  list('continue-rv-1e308', forgedContinueToken(1e308)),
  list('continue-rv-fraction', upstreamContinueToken(1.5)),
  list('continue-rv-string', upstreamContinueToken('5')),
  list('continue-rv-beyond-int64', Buffer.from('{"v":"meta.k8s.io/v1","rv":99999999999999999999,"start":"a"}').toString('base64url')),
];
