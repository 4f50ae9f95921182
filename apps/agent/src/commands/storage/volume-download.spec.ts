import { selfSignedIdentity } from '@corral/testing';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { CommandContext } from '../../drivers/command-context.js';
import { openHost, type Host } from '../../host/host.js';
import { runChecked } from '../../host/run-program.js';
import { urlMetadata } from './url-metadata.js';
import { download } from './volume-download.js';

const FILE = randomBytes(200_000);
const SHA256 = createHash('sha256').update(FILE).digest('hex');
const LOOPBACK = ['127.0.0.1/32'];

async function listening(server: Server): Promise<void> {
  const ready = once(server, 'listening');
  server.listen(0, '127.0.0.1');
  await ready;
}

describe('storage.download and node.url.metadata against real HTTP(S) servers', () => {
  let dir: string;
  let host: Host;
  let http: Server;
  let https: Server;
  let base: string;
  let secure: string;
  let backedImage: Buffer;
  let images: string;
  const lines: string[] = [];
  const context: CommandContext = { signal: new AbortController().signal, log: (line) => lines.push(line) };
  const routes: Record<string, (res: ServerResponse) => void> = {
    '/debian.iso': (res) => res.writeHead(200, { 'content-length': FILE.length }).end(FILE),
    '/debian.iso.gz': (res) => res.end(gzipSync(FILE)),
    '/zeros.gz': (res) => res.end(gzipSync(Buffer.alloc(500_000))),
    '/chunked': (res) => {
      res.write(FILE.subarray(0, 100_000));
      res.end(FILE.subarray(100_000));
    },
    '/moved': (res) => res.writeHead(302, { location: '/debian.iso' }).end(),
    '/far': (res) => res.writeHead(301, { location: `http://127.0.0.2:${(http.address() as AddressInfo).port}/debian.iso` }).end(),
    '/missing': (res) => res.writeHead(404).end('no'),
    '/backed.qcow2': (res) => res.end(backedImage),
    '/named': (res) =>
      res
        .writeHead(200, {
          'content-disposition': 'attachment; filename="netinst.iso"',
          'content-type': 'application/x-iso9660-image; charset=binary',
          'content-length': 4096,
        })
        .end(),
  };
  const serve = (req: IncomingMessage, res: ServerResponse) => (routes[(req.url ?? '').split('?')[0] ?? ''] ?? routes['/missing'])?.(res);
  const fetchInto = (file: string, url: string, extra: Partial<Parameters<typeof download>[1]> = {}) =>
    download(
      host,
      {
        path: '/var/lib/vz',
        mountpoint: false,
        file,
        url,
        verifyCertificates: true,
        allowNetworks: LOOPBACK,
        maxBytes: 1024 * 1024,
        ...extra,
      },
      context,
    );
  const folder = async (name: string) => readdir(join(dir, 'var/lib/vz', name)).catch(() => []);

  beforeAll(async () => {
    const identity = await selfSignedIdentity();
    http = createHttpServer(serve);
    https = createHttpsServer({ key: identity.key, cert: identity.cert }, serve);
    await Promise.all([listening(http), listening(https)]);
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    secure = `https://127.0.0.1:${(https.address() as AddressInfo).port}`;
    images = await mkdtemp(join(tmpdir(), 'corral-images-'));
    const signal = new AbortController().signal;
    await runChecked('qemu-img', ['create', '-f', 'qcow2', join(images, 'base.qcow2'), '1M'], { signal });
    await runChecked('qemu-img', ['create', '-f', 'qcow2', '-F', 'raw', '-b', '/etc/shadow', '-u', join(images, 'backed.qcow2'), '1M'], {
      signal,
    });
    backedImage = await readFile(join(images, 'backed.qcow2'));
    routes['/clean.qcow2'] = (res) => void readFile(join(images, 'base.qcow2')).then((bytes) => res.end(bytes));
  });
  afterAll(async () => {
    http.closeAllConnections();
    https.closeAllConnections();
    await Promise.all([new Promise((resolve) => http.close(resolve)), new Promise((resolve) => https.close(resolve))]);
    await rm(images, { recursive: true, force: true });
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-download-'));
    host = await openHost(dir);
    lines.length = 0;
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("stores a download whose checksum matches, following a redirect, with PVE's log lines", async () => {
    await expect(
      fetchInto('template/iso/debian.iso', `${base}/moved`, { checksum: { algorithm: 'sha256', digest: SHA256 } }),
    ).resolves.toEqual({ size: FILE.length });
    expect(await readFile(join(dir, 'var/lib/vz/template/iso/debian.iso'))).toEqual(FILE);
    expect(await folder('template/iso')).toEqual(['debian.iso']);
    expect(lines).toEqual([
      `downloading ${base}/moved to /var/lib/vz/template/iso/debian.iso`,
      `redirected to ${base}/debian.iso`,
      `downloaded ${FILE.length} bytes`,
      'calculating checksum...',
      'OK, checksum verified',
      `download of '${base}/moved' to '/var/lib/vz/template/iso/debian.iso' finished`,
    ]);
  });

  it("removes a download whose checksum does not match, failing with PVE's words", async () => {
    const wrong = 'ab'.repeat(32);
    await expect(
      fetchInto('template/iso/debian.iso', `${base}/debian.iso`, { checksum: { algorithm: 'sha256', digest: wrong } }),
    ).rejects.toThrow(`checksum mismatch: got '${SHA256}' != expect '${wrong}'`);
    expect(await folder('template/iso')).toEqual([]);
  });

  it('keeps an existing file that has the checksum, and refuses to replace one otherwise', async () => {
    await fetchInto('template/iso/debian.iso', `${base}/debian.iso`);
    await expect(fetchInto('template/iso/debian.iso', `${base}/debian.iso`)).rejects.toThrow(
      "refusing to override existing file '/var/lib/vz/template/iso/debian.iso'",
    );
    lines.length = 0;
    await expect(
      fetchInto('template/iso/debian.iso', `${base}/missing`, { checksum: { algorithm: 'sha256', digest: SHA256 } }),
    ).resolves.toEqual({ size: FILE.length });
    expect(lines).toEqual(['calculating checksum of existing file...', 'OK, got correct file already, no need to download']);
    await expect(
      fetchInto('template/iso/debian.iso', `${base}/debian.iso`, { checksum: { algorithm: 'md5', digest: 'cd'.repeat(16) } }),
    ).rejects.toThrow("!= expect 'cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd', aborting");
  });

  it('refuses loopback and private addresses unless their network is allowed, also behind a redirect', async () => {
    await expect(fetchInto('template/iso/debian.iso', `${base}/debian.iso`, { allowNetworks: [] })).rejects.toThrow(
      '127.0.0.1 is a loopback, link-local or cloud metadata address, which a download reaches only when the operator allows its network (CORRAL_DOWNLOAD_ALLOW_NETWORKS)',
    );
    await expect(fetchInto('template/iso/debian.iso', `${base}/far`)).rejects.toThrow(
      '127.0.0.2 is a loopback, link-local or cloud metadata address',
    );
    await expect(fetchInto('template/iso/debian.iso', 'http://10.255.255.1/debian.iso')).rejects.toThrow(
      '10.255.255.1 is a private network, shared or multicast address',
    );
    await expect(fetchInto('template/iso/debian.iso', 'http://localhost/debian.iso', { allowNetworks: [] })).rejects.toThrow(
      /^localhost resolves to (127\.0\.0\.1|::1), a loopback/,
    );
    expect(await folder('template/iso')).toEqual([]);
  });

  it('refuses a file larger than the limit, announced or not, leaving nothing behind', async () => {
    await expect(fetchInto('template/iso/debian.iso', `${base}/debian.iso`, { maxBytes: 1000 })).rejects.toThrow(
      `the file has ${FILE.length} bytes, more than the 1000 a download may have`,
    );
    await expect(fetchInto('template/iso/debian.iso', `${base}/chunked`, { maxBytes: 150_000 })).rejects.toThrow(
      'the download grew past the 150000 bytes a download may have',
    );
    await expect(fetchInto('template/iso/debian.iso', `${base}/zeros.gz`, { decompress: 'gz', maxBytes: 150_000 })).rejects.toThrow(
      'the unpacked file grew past the 150000 bytes',
    );
    expect(await folder('template/iso')).toEqual([]);
  });

  it('unpacks a gzip download, checking the checksum of what was downloaded', async () => {
    const packed = createHash('sha256').update(gzipSync(FILE)).digest('hex');
    await fetchInto('template/iso/debian.iso', `${base}/debian.iso.gz`, {
      decompress: 'gz',
      checksum: { algorithm: 'sha256', digest: packed },
    });
    expect(await readFile(join(dir, 'var/lib/vz/template/iso/debian.iso'))).toEqual(FILE);
  });

  it('fails on an answer other than 200 and on a host that does not answer', async () => {
    await expect(fetchInto('template/iso/debian.iso', `${base}/missing`)).rejects.toThrow(
      "download failed: the server answered '404 Not Found'",
    );
    const closed = createHttpServer();
    await listening(closed);
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(fetchInto('template/iso/debian.iso', `http://127.0.0.1:${port}/x.iso`)).rejects.toThrow(
      `cannot reach 127.0.0.1:${port}: connect ECONNREFUSED`,
    );
    expect(await folder('template/iso')).toEqual([]);
  });

  it("verifies an https server's certificate unless told not to", async () => {
    await expect(fetchInto('template/iso/debian.iso', `${secure}/debian.iso`)).rejects.toThrow(
      /cannot reach 127\.0\.0\.1:\d+: self[- ]signed certificate/,
    );
    await expect(fetchInto('template/iso/debian.iso', `${secure}/debian.iso`, { verifyCertificates: false })).resolves.toEqual({
      size: FILE.length,
    });
  });

  it('refuses an image to import that names a backing file, and stores a plain one', async () => {
    await expect(fetchInto('import/backed.qcow2', `${base}/backed.qcow2`)).rejects.toThrow(
      "the qcow2 image 'import/backed.qcow2' has a backing file ('/etc/shadow')",
    );
    await expect(fetchInto('import/fake.qcow2', `${base}/debian.iso`)).rejects.toThrow("'import/fake.qcow2' is not a qcow2 image");
    expect(await folder('import')).toEqual([]);
    await fetchInto('import/clean.qcow2', `${base}/clean.qcow2`);
    expect(await folder('import')).toEqual(['clean.qcow2']);
  });

  it('answers a HEAD request with the name, MIME type and size, as PVE reads them', async () => {
    const ask = (url: string) => urlMetadata({ url, verifyCertificates: true, allowNetworks: LOOPBACK }, context);
    await expect(ask(`${base}/named`)).resolves.toEqual({ filename: 'netinst.iso', mimetype: 'application/x-iso9660-image', size: 4096 });
    await expect(ask(`${base}/moved?x=1`)).resolves.toEqual({ filename: 'moved', size: FILE.length });
    await expect(ask(`${base}/missing`)).rejects.toThrow("invalid server response: '404 Not Found'");
    await expect(urlMetadata({ url: `${base}/named`, verifyCertificates: true, allowNetworks: [] }, context)).rejects.toThrow(
      '127.0.0.1 is a loopback',
    );
  });

  it('writes under the storage only when its mount point is mounted', async () => {
    await mkdir(join(dir, 'mnt/usb'), { recursive: true });
    await writeFile(join(dir, 'mnt/usb/marker'), '');
    await expect(
      download(
        host,
        {
          path: '/mnt/usb',
          mountpoint: true,
          file: 'template/iso/x.iso',
          url: `${base}/debian.iso`,
          verifyCertificates: true,
          allowNetworks: LOOPBACK,
          maxBytes: 1024,
        },
        context,
      ),
    ).rejects.toThrow('storage path /mnt/usb is not a mounted file system');
  });
});
