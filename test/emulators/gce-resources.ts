/** Compute Engine JSON shapes of the GCE emulator: disks, errors, and the list filter. */

export interface GceDiskRecord {
  name: string;
  scope: 'zones' | 'regions';
  /** The zone, or the region of a regional disk. */
  location: string;
  sizeGb: number;
  type: string;
  description?: string;
  labels: Record<string, string>;
  /** CREATING | READY | FAILED | DELETING */
  status: string;
  /** Instances the disk is attached to. */
  users: string[];
  replicaZones?: string[];
  id: string;
  provisionedIops?: number;
  provisionedThroughput?: number;
  /** What it was filled from (`projects/p/global/snapshots/s` or `projects/p/zones/z/disks/d`). */
  sourceSnapshot?: string;
  sourceDisk?: string;
  /** RFC 3339; set when the disk is added. */
  creationTimestamp?: string;
}

export function diskJson(disk: GceDiskRecord, project: string): Record<string, unknown> {
  const base = `https://www.googleapis.com/compute/v1/projects/${project}`;
  const where = `${base}/${disk.scope}/${disk.location}`;
  const json: Record<string, unknown> = {
    kind: 'compute#disk',
    id: disk.id,
    name: disk.name,
    sizeGb: String(disk.sizeGb),
    status: disk.status,
    type: `${where}/diskTypes/${disk.type}`,
    labels: disk.labels,
    selfLink: `${where}/disks/${disk.name}`,
  };
  json[disk.scope === 'zones' ? 'zone' : 'region'] = where;
  if (disk.description !== undefined) json.description = disk.description;
  if (disk.creationTimestamp !== undefined) json.creationTimestamp = disk.creationTimestamp;
  if (disk.users.length > 0) json.users = disk.users.map((user) => `https://www.googleapis.com/compute/v1/${user}`);
  if (disk.replicaZones) json.replicaZones = disk.replicaZones.map((zone) => `${base}/zones/${zone}`);
  if (disk.provisionedIops !== undefined) json.provisionedIops = String(disk.provisionedIops);
  if (disk.provisionedThroughput !== undefined) json.provisionedThroughput = String(disk.provisionedThroughput);
  if (disk.sourceSnapshot !== undefined) json.sourceSnapshot = `https://www.googleapis.com/compute/v1/${disk.sourceSnapshot}`;
  if (disk.sourceDisk !== undefined) json.sourceDisk = `https://www.googleapis.com/compute/v1/${disk.sourceDisk}`;
  return json;
}

export function gceError(code: number, reason: string, message: string): unknown {
  return { error: { code, message, errors: [{ message, domain: 'global', reason }] } };
}

/**
 * The subset of the list filter grammar the plugin uses: `field = "value"` clauses (also `!=`),
 * optionally parenthesised, joined by spaces or AND. Fields: name, status, labels.<key>.
 */
export function matchesFilter(disk: Pick<GceDiskRecord, 'name' | 'status' | 'labels'>, filter: string): boolean {
  const clause = /\(?\s*([A-Za-z0-9_.-]+)\s*(=|!=|eq|ne)\s*"?([^")\s]*)"?\s*\)?/g;
  for (const match of filter.matchAll(clause)) {
    const [, field, operator, value] = match;
    if (field.toUpperCase() === 'AND') continue;
    const actual = field.startsWith('labels.') ? disk.labels[field.slice(7)] : field === 'name' ? disk.name : field === 'status' ? disk.status : undefined;
    const equal = actual === value;
    if ((operator === '=' || operator === 'eq') !== equal) return false;
  }
  return true;
}
