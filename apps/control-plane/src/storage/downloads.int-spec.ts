import type { RequestFrame } from '@corral/protocol';
import type { FakeAgent, FakeAnswer } from '@corral/testing';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { addUser, basic, call, dataOf, expectError, grant, type Headers } from '../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../test-support/node-fixture.js';
import { finished } from '../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { StorageModule } from './storage.module.js';

const PASSWORD = 'download-password';
const SHA256 = 'ab'.repeat(32);
const SHA512 = 'cd'.repeat(64);
const INDEX = `Package: pve-web-news
Version: 1.0
Type: lxc
Description: news

Package: debian-13-standard
Version: 13.1-2
Type: lxc
OS: debian-13
Section: system
Location: system/debian-13-standard_13.1-2_amd64.tar.zst
sha512sum: ${SHA512.toUpperCase()}
Infopage: https://example.com/debian
Description: Debian 13 (standard)
 A small Debian system.

Package: unsigned
Version: 1.0
Type: lxc
OS: debian-13
Location: system/unsigned_1.0_amd64.tar.gz
Infopage: https://example.com/unsigned
`;

describe('downloads into a storage and appliance templates, through a fake agent', () => {
  let t: TestApp;
  let agent: FakeAgent;
  let index: Server;
  let indexUrl: string;
  const asked: RequestFrame[] = [];
  let answer: FakeAnswer = { result: { size: 4096 } };
  const sent = (command: string) => asked.filter((each) => each.command === command);
  const download = (form: Record<string, string | number>, storage = 'local', as?: Headers) =>
    call(t, 'POST', `/nodes/pve1/storage/${storage}/download-url`, { form, as });
  const ISO = { content: 'iso', filename: 'debian.iso', url: 'https://cdimage.example.com/debian.iso' };

  beforeAll(async () => {
    index = createServer((req, res) => (req.url === '/images/aplinfo.dat' ? res.end(INDEX) : res.writeHead(404).end()));
    index.listen(0, '127.0.0.1');
    await once(index, 'listening');
    indexUrl = `http://127.0.0.1:${(index.address() as AddressInfo).port}/images/aplinfo.dat`;
    t = await startTestApp({
      imports: [ClusterModule, StorageModule],
      env: { CORRAL_APLINFO_URL: indexUrl, CORRAL_DOWNLOAD_ALLOW_NETWORKS: '127.0.0.1/32, 192.168.10.0/24' },
    });
    agent = await onlineAgent(t, 'pve1', await joinNode(t, 'pve1'), {
      answer: (request) => {
        asked.push(request);
        if (request.command === 'storage.activate') return { result: { active: true } };
        if (request.command === 'node.url.metadata')
          return { result: { filename: 'debian.iso', mimetype: 'application/x-iso9660-image', size: 4096 } };
        return answer;
      },
    });
    await addUser(t, 'auditor@pve', { password: PASSWORD });
    await grant(t, { path: '/', type: 'user', ugid: 'auditor@pve', roleid: 'PVEAuditor' });
    dataOf(await call(t, 'POST', '/storage', { form: { storage: 'images', type: 'dir', path: '/srv/images', content: 'import,iso' } }));
  });
  afterEach(() => {
    asked.length = 0;
    answer = { result: { size: 4096 } };
  });
  afterAll(async () => {
    agent.close();
    await t.close();
    index.close();
  });

  it("downloads in a download task on the node's agent, with the operator's networks and the checksum passed on", async () => {
    const upid = dataOf<string>(await download({ ...ISO, checksum: SHA256.toUpperCase(), 'checksum-algorithm': 'sha256' }));
    expect(upid).toMatch(/^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8,9}:[0-9A-F]{8}:download:debian\.iso:root@pam:$/);
    expect(await finished(t, 'pve1', upid)).toBe('OK');
    expect(sent('storage.download')).toEqual([
      expect.objectContaining({
        upid,
        params: {
          path: '/var/lib/vz',
          mountpoint: false,
          file: 'template/iso/debian.iso',
          url: ISO.url,
          verifyCertificates: true,
          allowNetworks: ['127.0.0.1/32', '192.168.10.0/24'],
          checksum: { algorithm: 'sha256', digest: SHA256 },
          maxBytes: 64 * 1024 ** 3,
        },
      }),
    ]);
    // A cloud image to import, a name made safe, certificates not verified, a gzip ISO unpacked.
    await finished(
      t,
      'pve1',
      dataOf<string>(
        await download(
          { content: 'import', filename: 'debian 13.qcow2', url: 'http://192.168.10.5/debian.qcow2', 'verify-certificates': 0 },
          'images',
        ),
      ),
    );
    expect(sent('storage.download').at(-1)?.params).toMatchObject({
      path: '/srv/images',
      file: 'import/debian_13.qcow2',
      url: 'http://192.168.10.5/debian.qcow2',
      verifyCertificates: false,
    });
    await finished(t, 'pve1', dataOf<string>(await download({ ...ISO, url: 'https://example.com/debian.iso.gz', compression: 'gz' })));
    expect(sent('storage.download').at(-1)?.params).toMatchObject({ file: 'template/iso/debian.iso', decompress: 'gz' });
  });

  it("ends the task with the agent's error, such as a checksum that does not match", async () => {
    const mismatch = `checksum mismatch: got '${'00'.repeat(32)}' != expect '${SHA256}'`;
    answer = { failure: 'failed', message: mismatch };
    expect(await finished(t, 'pve1', dataOf<string>(await download({ ...ISO, checksum: SHA256, 'checksum-algorithm': 'sha256' })))).toBe(
      mismatch,
    );
  });

  it('refuses bad downloads before anything reaches the node, naming the parameter', async () => {
    expectError(
      await download({ ...ISO, filename: '../../etc/passwd.iso' }),
      400,
      "'../../etc/passwd.iso' must be a file name, without '/' or '..'",
      'filename',
    );
    expectError(await download({ ...ISO, filename: 'sub/x.iso' }), 400, "must be a file name, without '/' or '..'", 'filename');
    expectError(
      await download({ ...ISO, filename: 'x.tar.gz' }),
      400,
      "'x.tar.gz' has the wrong file extension for content 'iso'",
      'filename',
    );
    expectError(
      await download({ ...ISO, content: 'import', filename: 'disk.img' }, 'images'),
      400,
      "'disk.img': invalid filename or wrong extension",
      'filename',
    );
    expectError(await download({ ...ISO, content: 'backup' }), 400, "parameter 'content'", 'content');
    expectError(
      await download({ ...ISO, content: 'import', filename: 'disk.qcow2' }),
      400,
      "storage 'local' does not hold content 'import'",
      'content',
    );
    expectError(
      await download({ ...ISO, url: 'http://10.0.0.5/x.iso' }),
      400,
      '10.0.0.5 is a private network, shared or multicast address, which a download reaches only when the operator allows its network (CORRAL_DOWNLOAD_ALLOW_NETWORKS)',
      'url',
    );
    expectError(
      await download({ ...ISO, url: 'http://[::1]/x.iso' }),
      400,
      '::1 is a loopback, link-local or cloud metadata address',
      'url',
    );
    expectError(await download({ ...ISO, url: 'http://169.254.169.254/latest/x.iso' }), 400, '169.254.169.254 is a loopback', 'url');
    expectError(await download({ ...ISO, url: 'ftp://example.com/x.iso' }), 400, 'must be an http or https URL', 'url');
    expectError(await download({ ...ISO, checksum: SHA256 }), 400, 'checksum and checksum-algorithm go together', 'checksum-algorithm');
    expectError(
      await download({ ...ISO, compression: 'zst' }),
      400,
      "compression 'zst' is not supported by Corral yet: only 'gz'",
      'compression',
    );
    expectError(
      await download({ ...ISO, content: 'vztmpl', filename: 'x.tar.gz', compression: 'gz' }),
      400,
      'decompression not supported for vztmpl',
      'compression',
    );
    expectError(await download({ ...ISO, compression: 'rar' }), 400, "unknown compression 'rar'", 'compression');
    expectError(await download(ISO, 'nowhere'), 404, "storage 'nowhere' does not exist");
    // PVEAuditor has Sys.Audit but neither Sys.Modify nor Datastore.AllocateTemplate.
    expectError(await download(ISO, 'local', basic('auditor@pve', PASSWORD)), 403, 'permission denied');
    expect(sent('storage.download')).toEqual([]);
  });

  it("asks the node for a URL's metadata", async () => {
    expect(
      dataOf(await call(t, 'GET', '/nodes/pve1/query-url-metadata', { query: `url=${encodeURIComponent(ISO.url)}&verify-certificates=0` })),
    ).toEqual({ filename: 'debian.iso', mimetype: 'application/x-iso9660-image', size: 4096 });
    expect(sent('node.url.metadata').at(-1)?.params).toEqual({
      url: ISO.url,
      verifyCertificates: false,
      allowNetworks: ['127.0.0.1/32', '192.168.10.0/24'],
    });
    expectError(
      await call(t, 'GET', '/nodes/pve1/query-url-metadata', { query: 'url=http%3A%2F%2F127.0.0.2%2Fx' }),
      400,
      '127.0.0.2 is a loopback',
      'url',
    );
    expectError(
      await call(t, 'GET', '/nodes/nowhere/query-url-metadata', { query: `url=${encodeURIComponent(ISO.url)}` }),
      404,
      'does not exist',
    );
  });

  it("lists the index's appliances as PVE does and downloads one into vztmpl, checked against the index's sha512", async () => {
    const appliances = dataOf<Record<string, string>[]>(
      await call(t, 'GET', '/nodes/pve1/aplinfo', { as: basic('auditor@pve', PASSWORD) }),
    );
    expect(appliances.map((each) => each.template)).toEqual(['debian-13-standard_13.1-2_amd64.tar.zst', 'unsigned_1.0_amd64.tar.gz']);
    const source = indexUrl.replace(/\/aplinfo\.dat$/, '');
    expect(appliances[0]).toMatchObject({
      package: 'debian-13-standard',
      headline: 'Debian 13 (standard)',
      description: 'A small Debian system.',
      source,
      location: `${source}/system/debian-13-standard_13.1-2_amd64.tar.zst`,
    });

    const upid = dataOf<string>(
      await call(t, 'POST', '/nodes/pve1/aplinfo', { form: { storage: 'local', template: 'debian-13-standard_13.1-2_amd64.tar.zst' } }),
    );
    expect(upid).toMatch(/:download:debian-13-standard_13\.1-2_amd64\.tar\.zst:root@pam:$/);
    expect(await finished(t, 'pve1', upid)).toBe('OK');
    expect(sent('storage.download').at(-1)?.params).toMatchObject({
      file: 'template/cache/debian-13-standard_13.1-2_amd64.tar.zst',
      url: `${source}/system/debian-13-standard_13.1-2_amd64.tar.zst`,
      checksum: { algorithm: 'sha512', digest: SHA512 },
    });
    expectError(
      await call(t, 'POST', '/nodes/pve1/aplinfo', { form: { storage: 'local', template: 'nothing.tar.zst' } }),
      400,
      'no such template',
      'template',
    );
    expectError(
      await call(t, 'POST', '/nodes/pve1/aplinfo', { form: { storage: 'local', template: 'unsigned_1.0_amd64.tar.gz' } }),
      400,
      'checksum required but not specified',
      'template',
    );
    expectError(
      await call(t, 'POST', '/nodes/pve1/aplinfo', { form: { storage: 'images', template: 'debian-13-standard_13.1-2_amd64.tar.zst' } }),
      400,
      "storage 'images' does not hold content 'vztmpl'",
      'content',
    );
    expectError(
      await call(t, 'POST', '/nodes/pve1/aplinfo', {
        form: { storage: 'local', template: 'debian-13-standard_13.1-2_amd64.tar.zst' },
        as: basic('auditor@pve', PASSWORD),
      }),
      403,
      'permission denied',
    );
  });
});
