// `helm test`'s check, run by node in the controller's own image (templates/tests/controller-test.yaml).
// LEASE_URL: the leader Lease, read with the ServiceAccount's token; passes when a holder renewed
// it within two lease durations. READYZ_URL: the metrics Service's /readyz; passes on 200.
import { readFileSync } from 'node:fs';

const { LEASE_URL, READYZ_URL, TOKEN_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/token' } = process.env;

async function checkLease(url) {
  const token = readFileSync(TOKEN_FILE, 'utf8').trim();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
  if (res.status !== 200) return `GET ${url}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`;
  const spec = (await res.json()).spec ?? {};
  if (!spec.holderIdentity) return `the Lease at ${url} has no holder: no controller leads`;
  const age = (Date.now() - Date.parse(spec.renewTime ?? '')) / 1000;
  const limit = 2 * (spec.leaseDurationSeconds ?? 15);
  if (!(age <= limit)) return `the Lease's holder ${spec.holderIdentity} last renewed ${Math.round(age)} s ago (more than ${limit} s): the leader is gone`;
  console.log(`leader ${spec.holderIdentity} renewed the Lease ${Math.round(age)} s ago`);
  return undefined;
}

async function checkReady(url) {
  const res = await fetch(url);
  if (res.status !== 200) return `GET ${url}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`;
  console.log(`${url}: ready`);
  return undefined;
}

const problem = LEASE_URL ? await checkLease(LEASE_URL) : READYZ_URL ? await checkReady(READYZ_URL) : 'neither LEASE_URL nor READYZ_URL is set';
if (problem) {
  console.error(`pv-controller test failed: ${problem}`);
  process.exit(1);
}
