import type { RequestFrame } from '@corral/protocol';
import type { FakeAgent, FakeAnswer } from '@corral/testing';
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:https';
import WebSocket from 'ws';
import { addUser, basic, call, dataOf, expectError, grant, ROOT, type Headers } from '../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../test-support/node-fixture.js';
import { finished } from '../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { StorageModule } from './storage.module.js';

const PASSWORD = 'upload-password';
const ISO = randomBytes(1024 * 1024 + 17);
const SHA256 = createHash('sha256').update(ISO).digest('hex');

/** A multipart form as proxmoxer (python-requests) sends one: the fields, then the file as the part `filename`. */
function form(fields: Record<string, string>, file: { name: string; bytes: Buffer; part?: string } | null): { body: Buffer; type: string } {
  const boundary = `corral-${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = Object.entries(fields).map(([name, value]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
  );
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.part ?? 'filename'}"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

describe('uploads into a storage (POST /nodes/{node}/storage/{storage}/upload), through a fake agent', () => {
  let t: TestApp;
  let agent: FakeAgent;
  let credential: string;
  const asked: RequestFrame[] = [];
  /** What the fake agent received through each upload's stream. */
  const received: Buffer[] = [];
  let refusal: FakeAnswer | null = null;

  /** The agent's side of `storage.upload`: opens the stream, says it listens, keeps the bytes, answers at the end. */
  const receive = (request: RequestFrame): Promise<FakeAnswer> => {
    const { stream } = request.params as { stream: string };
    const socket = new WebSocket(`wss://${new URL(t.agentUrl).host}/agent/v1/streams/${stream}`, {
      ca: t.cert,
      headers: { authorization: `CorralNode pve1:${credential}` },
    });
    const chunks: Buffer[] = [];
    return new Promise((resolve) => {
      socket.once('open', () => socket.send(JSON.stringify({ ready: true })));
      socket.on('message', (data: Buffer, isBinary) => {
        if (isBinary) return void chunks.push(data);
        const bytes = Buffer.concat(chunks);
        received.push(bytes);
        socket.close(1000, 'stored');
        resolve(
          (JSON.parse(data.toString()) as { size: number }).size === bytes.length
            ? { result: { size: bytes.length } }
            : { failure: 'failed', message: 'size mismatch' },
        );
      });
      socket.once('close', (_code, reason) => resolve({ failure: 'failed', message: `the upload stopped: ${reason.toString()}` }));
      socket.once('error', (error) => resolve({ failure: 'failed', message: error.message }));
    });
  };

  const upload = (
    fields: Record<string, string>,
    file: { name: string; bytes: Buffer; part?: string } | null,
    as: Headers = ROOT,
    storage = 'local',
  ) => {
    const { body, type } = form(fields, file);
    return t.api.send(`/nodes/pve1/storage/${storage}/upload`, { method: 'POST', headers: { ...as, 'content-type': type }, body });
  };
  const uploads = () => asked.filter((each) => each.command === 'storage.upload');

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, StorageModule] });
    credential = await joinNode(t, 'pve1');
    agent = await onlineAgent(t, 'pve1', credential, {
      answer: (request) => {
        asked.push(request);
        if (request.command === 'storage.activate') return { result: { active: true } };
        if (request.command !== 'storage.upload') return { failure: 'unknown-command', message: request.command };
        return refusal ?? receive(request);
      },
    });
    await addUser(t, 'auditor@pve', { password: PASSWORD });
    await grant(t, { path: '/', type: 'user', ugid: 'auditor@pve', roleid: 'PVEAuditor' });
    dataOf(await call(t, 'POST', '/storage', { form: { storage: 'disks', type: 'dir', path: '/srv/disks', content: 'images' } }));
  });
  afterEach(() => {
    asked.length = 0;
    received.length = 0;
    refusal = null;
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });

  it('streams the file to the agent in an imgcopy task, its name made safe and its checksum passed on', async () => {
    const upid = dataOf<string>(
      await upload(
        { content: 'iso', checksum: SHA256.toUpperCase(), 'checksum-algorithm': 'sha256' },
        { name: 'debian 13.iso', bytes: ISO },
      ),
    );
    expect(upid).toMatch(/^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8,9}:[0-9A-F]{8}:imgcopy::root@pam:$/);
    expect(await finished(t, 'pve1', upid)).toBe('OK');
    expect(uploads()).toEqual([
      expect.objectContaining({
        upid,
        params: {
          stream: expect.any(String),
          path: '/var/lib/vz',
          mountpoint: false,
          file: 'template/iso/debian_13.iso',
          checksum: { algorithm: 'sha256', digest: SHA256 },
        },
      }),
    ]);
    expect(received).toHaveLength(1);
    expect(received[0]?.equals(ISO)).toBe(true);
    // A template, without a checksum.
    expect(
      await finished(
        t,
        'pve1',
        dataOf<string>(await upload({ content: 'vztmpl' }, { name: 'alpine.tar.zst', bytes: ISO.subarray(0, 1000) })),
      ),
    ).toBe('OK');
    expect(uploads().at(-1)?.params).toEqual({
      stream: expect.any(String),
      path: '/var/lib/vz',
      mountpoint: false,
      file: 'template/cache/alpine.tar.zst',
    });
  });

  it("ends the task with the agent's error when the node cannot take the file, after reading the whole body", async () => {
    refusal = {
      failure: 'failed',
      message: 'storage path /var/lib/vz is not a mounted file system (is_mountpoint is set): mount it first',
    };
    const upid = dataOf<string>(await upload({ content: 'iso' }, { name: 'x.iso', bytes: ISO }));
    expect(await finished(t, 'pve1', upid)).toBe(refusal.message);
  });

  it('refuses bad uploads before anything reaches the node, and the connection goes on serving', async () => {
    expectError(
      await upload({ content: 'iso' }, { name: 'x.iso', bytes: ISO }, ROOT, 'disks'),
      400,
      "storage 'disks' does not hold content 'iso'",
      'content',
    );
    expectError(
      await upload({ content: 'iso' }, { name: 'x.tar.gz', bytes: ISO }),
      400,
      "'x.tar.gz' has the wrong file extension for content 'iso'",
      'filename',
    );
    expectError(
      await upload({ content: 'iso', checksum: SHA256 }, { name: 'x.iso', bytes: ISO }),
      400,
      'checksum and checksum-algorithm go together',
      'checksum-algorithm',
    );
    expectError(
      await upload({ content: 'iso', checksum: 'xyz', 'checksum-algorithm': 'sha256' }, { name: 'x.iso', bytes: ISO }),
      400,
      'must be a digest in lower-case hex',
      'checksum',
    );
    expectError(await upload({ content: 'dvd' }, { name: 'x.iso', bytes: ISO }), 400, '', 'content');
    expectError(
      await upload({ content: 'iso' }, { name: 'x.iso', bytes: ISO, part: 'file' }),
      400,
      "the file must be the form part 'filename', not 'file'",
      'filename',
    );
    expectError(await upload({ content: 'iso' }, null), 400, "parameter 'filename' is missing", 'filename');
    expectError(await upload({ content: 'iso' }, { name: 'x.iso', bytes: ISO }, basic('auditor@pve', PASSWORD)), 403, 'permission denied');
    expectError(
      await call(t, 'POST', '/nodes/pve1/storage/local/upload', { form: { content: 'iso', filename: 'x.iso' } }),
      400,
      'send the file as the part',
      'filename',
    );
    expect(uploads()).toEqual([]);
    expect(dataOf<{ storage: string }[]>(await call(t, 'GET', '/storage')).map((each) => each.storage)).toEqual(['disks', 'local']);
  });

  it('answers 413 for a body longer than the limit before reading it, and 415 for a form with a file anywhere else', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${t.api.baseUrl}/nodes/pve1/storage/local/upload`);
      const req = request(
        url,
        {
          method: 'POST',
          ca: t.cert,
          headers: { ...ROOT, 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(17 * 1024 ** 3) },
        },
        (res) => {
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on('error', reject);
      req.write('--x\r\n');
    });
    expect(status).toBe(413);
    const { body, type } = form({ storage: 'isos', type: 'dir', path: '/srv/isos' }, { name: 'x.iso', bytes: ISO });
    expectError(
      await t.api.send('/storage', { method: 'POST', headers: { ...ROOT, 'content-type': type }, body }),
      415,
      "unsupported content type 'multipart/form-data' for POST /storage",
    );
  });
});
