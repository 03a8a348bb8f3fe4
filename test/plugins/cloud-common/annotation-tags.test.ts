import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OAuth2Client } from 'google-auth-library';
import { TAG_CREATED_FOR_PV_NAME } from '@pv-controller/kube/annotations.js';
import { claimTags, parseAnnotationTags } from '../../../src/plugins/cloud-common/annotation-tags.js';
import { AwsEbsPlugin } from '../../../src/plugins/aws-ebs/aws-ebs-plugin.js';
import { GcePdPlugin } from '../../../src/plugins/gce-pd/gce-pd-plugin.js';
import { CinderPlugin } from '../../../src/plugins/cinder/cinder-plugin.js';
import { cloudSettingsFromFlags } from '../../../src/cli/plugin-flags.js';
import { Ec2Emulator } from '../../emulators/ec2.js';
import { GceEmulator } from '../../emulators/gce.js';
import { OpenStackEmulator, openStackEnv } from '../../emulators/openstack.js';
import { fastCloudOptions, provisionRequest } from '../../emulators/fixtures.js';

const COST = 'example.com/cost-center';

function withAnnotations(pvName: string, annotations: Record<string, string>) {
  const req = provisionRequest({ pvName, claimName: 'db', namespace: 'shop' });
  return { ...req, claim: { ...req.claim, annotations } };
}

describe('PVC annotations copied to cloud tags through the admin\'s allow-list', () => {
  it('only listed annotations become tags, under the names the admin chose', () => {
    const mappings = parseAnnotationTags([`${COST}=cost-center`, 'example.com/team=team'], 'aws');
    assert.deepEqual(claimTags(mappings, { [COST]: 'C-42', 'example.com/other': 'x' }, 'aws'), { 'cost-center': 'C-42' });
  });

  for (const [text, cloud, message] of [
    [`${COST}=kubernetes.io/cluster/other`, 'aws', /pv-controller's own/],
    [`${COST}=kubernetes.io/created-for/pv/name`, 'gce', /pv-controller's own/],
    [`${COST}=Name`, 'openstack', /pv-controller's own/],
    [`${COST}=aws:createdBy`, 'aws', /reserved by the cloud/],
    [`${COST}=Cost-Center`, 'gce', /not a tag key on gce/],
    ['not an annotation!=x', 'aws', /not an annotation key/],
    [`${COST}`, 'aws', /must be ANNOTATION=TAG/],
  ] as const) {
    it(`refuses the mapping "${text}" on ${cloud}`, () => {
      assert.throws(() => parseAnnotationTags([text], cloud), message);
    });
  }

  it('refuses two annotations aimed at one tag, and the flag without a cloud', () => {
    assert.throws(() => parseAnnotationTags([`${COST}=cc`, 'example.com/b=cc'], 'aws'), /target of two annotations/);
    assert.throws(() => cloudSettingsFromFlags({ cloudTagFromAnnotation: [`${COST}=cc`] }), /needs --cloud-provider/);
    assert.throws(() => cloudSettingsFromFlags({ cloudProvider: 'aws', cloudTagFromAnnotation: [`${COST}=kubernetes.io/cluster/x`] }), /--cloud-tag-from-annotation: tag/);
  });

  it('a value the cloud cannot hold refuses the claim for good, naming the annotation', () => {
    const [mapping] = parseAnnotationTags([`${COST}=cost-center`], 'gce');
    assert.throws(() => claimTags([mapping!], { [COST]: 'Upper' }, 'gce'), (err: Error & { retryable?: boolean }) => err.retryable === false && /annotation "example.com\/cost-center".*lower-case/.test(err.message));
    assert.throws(() => claimTags([mapping!], { [COST]: 'x'.repeat(64) }, 'gce'), /longer than 63/);
    assert.throws(() => claimTags([mapping!], { [COST]: 'a\nb' }, 'openstack'), /control character/);
    assert.throws(() => claimTags([mapping!], { [COST]: 'x'.repeat(257) }, 'aws'), /longer than 256/);
  });

  describe('on the emulators', () => {
    const ec2 = new Ec2Emulator();
    const gce = new GceEmulator();
    const os = new OpenStackEmulator();
    before(() => Promise.all([ec2.start(), gce.start(), os.start()]));
    after(() => Promise.all([ec2.stop(), gce.stop(), os.stop()]));

    it('EBS: the mapped annotation is a tag, our provenance tags unchanged beside it', async () => {
      const plugin = new AwsEbsPlugin({
        region: ec2.region, endpoint: ec2.url, credentials: { accessKeyId: 'AKIDEMULATOR', secretAccessKey: 'emulator-secret-key' },
        ...fastCloudOptions(), annotationTags: parseAnnotationTags([`${COST}=cost-center`], 'aws'),
      });
      await plugin.provision(withAnnotations('pvc-tag-aws', { [COST]: 'C 42/x' }));
      const volume = ec2.volumes().find((v) => v.tags[TAG_CREATED_FOR_PV_NAME] === 'pvc-tag-aws');
      assert.equal(volume?.tags['cost-center'], 'C 42/x');
      assert.equal(volume?.tags['kubernetes.io/cluster/kubernetes'], 'owned');
    });

    it('GCE: the mapped annotation is a label and in the description\'s tags', async () => {
      const client = new OAuth2Client({ clientId: gce.clientId, clientSecret: gce.clientSecret, endpoints: { oauth2TokenUrl: gce.tokenUrl } });
      client.setCredentials({ refresh_token: gce.refreshToken });
      const plugin = new GcePdPlugin({
        project: gce.project, zone: 'us-central1-a', endpoint: gce.computeEndpoint, authClient: client,
        ...fastCloudOptions(), annotationTags: parseAnnotationTags([`${COST}=cost-center`], 'gce'),
      });
      const req = withAnnotations('pvc-tag-gce', { [COST]: 'c-42' });
      await plugin.provision(req);
      const disk = gce.disks().find((d) => d.name === req.backingName);
      assert.equal(disk?.labels['cost-center'], 'c-42');
      assert.equal((JSON.parse(disk?.description ?? '{}') as Record<string, string>)['cost-center'], 'c-42');
    });

    it('Cinder: the mapped annotation is volume metadata', async () => {
      const plugin = new CinderPlugin({
        env: openStackEnv(os),
        ...fastCloudOptions(), annotationTags: parseAnnotationTags([`${COST}=cost-center`], 'openstack'),
      });
      await plugin.provision(withAnnotations('pvc-tag-os', { [COST]: 'C-42' }));
      const volume = os.volumes().find((v) => v.metadata[TAG_CREATED_FOR_PV_NAME] === 'pvc-tag-os');
      assert.equal(volume?.metadata['cost-center'], 'C-42');
    });
  });
});
