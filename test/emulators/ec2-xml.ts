/** EC2 Query API answers as XML the AWS SDK parses (API version 2016-11-15). */

const NS = 'http://ec2.amazonaws.com/doc/2016-11-15/';

export interface Ec2Volume {
  id: string;
  zone: string;
  sizeGiB: number;
  type: string;
  iops?: number;
  /** MiB/s (gp3). */
  throughput?: number;
  encrypted: boolean;
  kmsKeyId?: string;
  state: 'creating' | 'available' | 'in-use' | 'deleting' | 'deleted' | 'error';
  tags: Record<string, string>;
  /** Instance the volume is attached to; a delete is refused while set. */
  attachedTo?: string;
  clientToken?: string;
  createTime: Date;
  /** The snapshot it was created from. */
  snapshotId?: string;
}

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function element(name: string, value: string | number | boolean | undefined): string {
  if (value === undefined) return '';
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

function tagSet(tags: Record<string, string>): string {
  const items = Object.entries(tags)
    .map(([key, value]) => `<item>${element('key', key)}${element('value', value)}</item>`)
    .join('');
  return `<tagSet>${items}</tagSet>`;
}

function attachmentSet(volume: Ec2Volume): string {
  if (volume.attachedTo === undefined) return '<attachmentSet/>';
  return (
    '<attachmentSet><item>' +
    element('volumeId', volume.id) +
    element('instanceId', volume.attachedTo) +
    element('device', '/dev/xvdba') +
    element('status', 'attached') +
    element('attachTime', volume.createTime.toISOString()) +
    element('deleteOnTermination', false) +
    '</item></attachmentSet>'
  );
}

/** The fields CreateVolume returns at top level and DescribeVolumes returns per item. */
export function volumeFields(volume: Ec2Volume): string {
  return (
    element('volumeId', volume.id) +
    element('size', volume.sizeGiB) +
    (volume.snapshotId === undefined ? '<snapshotId/>' : element('snapshotId', volume.snapshotId)) +
    element('availabilityZone', volume.zone) +
    element('status', volume.state) +
    element('createTime', volume.createTime.toISOString()) +
    attachmentSet(volume) +
    tagSet(volume.tags) +
    element('volumeType', volume.type) +
    element('iops', volume.iops) +
    element('throughput', volume.throughput) +
    element('encrypted', volume.encrypted) +
    element('kmsKeyId', volume.kmsKeyId)
  );
}

export function actionResponse(action: string, requestId: string, inner: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="${NS}">` +
    `${element('requestId', requestId)}${inner}</${action}Response>`
  );
}

export function describeVolumesXml(requestId: string, volumes: Ec2Volume[], nextToken?: string): string {
  const items = volumes.map((volume) => `<item>${volumeFields(volume)}</item>`).join('');
  return actionResponse(
    'DescribeVolumes',
    requestId,
    `<volumeSet>${items}</volumeSet>${element('nextToken', nextToken)}`,
  );
}

export function describeZonesXml(requestId: string, region: string, zones: string[]): string {
  const items = zones
    .map(
      (zone) =>
        `<item>${element('zoneName', zone)}${element('zoneState', 'available')}` +
        `${element('regionName', region)}<messageSet/></item>`,
    )
    .join('');
  return actionResponse('DescribeAvailabilityZones', requestId, `<availabilityZoneInfo>${items}</availabilityZoneInfo>`);
}

export function errorXml(requestId: string, code: string, message: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error>' +
    `${element('Code', code)}${element('Message', message)}</Error></Errors>` +
    `${element('RequestID', requestId)}</Response>`
  );
}
