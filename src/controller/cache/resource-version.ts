/**
 * resourceVersions compared as integers, as the upstream controller does (`storeObjectUpdate`):
 * "10" is newer than "2". Anything unparsable sorts as -1 so a real version always wins over it.
 */
export function rvNumber(rv: string | undefined): number {
  if (rv === undefined || rv === '') return -1;
  const n = Number(rv);
  return Number.isSafeInteger(n) && n >= 0 ? n : -1;
}
