import { ControlPlaneProcess, waitFor } from '@corral/testing';
import { hostname, totalmem } from 'node:os';
import { createHash, X509Certificate } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Processes whose command line names this data dir: the embedded PostgreSQL of that control plane. */
async function postgresProcessesOf(dataDir: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('postgres') && cmdline.includes(join(dataDir, 'pg'))) pids.push(Number(entry));
  }
  return pids;
}

// The README's first command on a fresh machine: no DATABASE_URL, so the embedded PostgreSQL.
describe('a control plane with its embedded PostgreSQL', () => {
  let first: ControlPlaneProcess;
  afterAll(() => first?.stop('SIGKILL'));

  it('starts from an empty data dir and answers GET /version without credentials', async () => {
    first = await ControlPlaneProcess.start();
    const res = await first.api.get('/version');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json;charset=UTF-8');
    expect(res.json()).toEqual({
      data: {
        version: expect.stringMatching(/^9\.\d+\.\d+$/),
        release: expect.stringMatching(/^9\.\d+$/),
        repoid: expect.stringMatching(/^[0-9a-f]{16}$/),
        'corral-version': '0.1.0',
      },
    });
  });

  it('generated an EC certificate for localhost and 127.0.0.1, whose SHA-256 fingerprint it printed', async () => {
    const cert = new X509Certificate(await readFile(join(first.dataDir, 'tls/corral.crt')));
    expect(cert.publicKey.asymmetricKeyType).toBe('ec');
    expect(cert.subjectAltName).toContain('DNS:localhost');
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(first.fingerprint).toBe(cert.fingerprint256);
    expect(createHash('sha256').update(cert.raw).digest('hex').toUpperCase()).toBe(first.fingerprint.replaceAll(':', ''));
    expect((await stat(join(first.dataDir, 'tls/corral.key'))).mode & 0o777).toBe(0o600);
  });

  it('is a one-node cluster: its local agent joined this host as a node that is online', async () => {
    const password = (await readFile(join(first.dataDir, 'root-password'), 'utf8')).trim();
    const headers = { authorization: `Basic ${Buffer.from(`root@pam:${password}`).toString('base64')}` };
    const nodes = async () =>
      (await first.api.send('/nodes', { headers })).json<{ data: { node: string; status: string; maxmem?: number }[] }>().data;
    await waitFor(async () => (await nodes()).some((node) => node.status === 'online' && (node.maxmem ?? 0) > 0), {
      timeoutMs: 20_000,
      what: 'the local node online',
    });
    expect(await nodes()).toEqual([expect.objectContaining({ node: hostname().split('.')[0], status: 'online', maxmem: totalmem() })]);
    expect((await stat(join(first.dataDir, 'agent/agent.json'))).mode & 0o777).toBe(0o600);
  });

  it('comes back after kill -9 on the same data dir, with the same certificate', async () => {
    const orphans = await postgresProcessesOf(first.dataDir);
    expect(orphans.length).toBeGreaterThan(0);
    await first.stop('SIGKILL');
    // The killed control plane leaves its PostgreSQL running: the next start must deal with it.
    expect(await postgresProcessesOf(first.dataDir)).toEqual(expect.arrayContaining(orphans));

    const second = await ControlPlaneProcess.start({ dataDir: first.dataDir });
    try {
      expect((await second.api.get('/version')).status).toBe(200);
      expect(second.fingerprint).toBe(first.fingerprint);
      expect(second.output.join('\n')).toContain('stopping the orphaned PostgreSQL');
    } finally {
      // SIGTERM: drain, stop the embedded PostgreSQL, exit 0.
      expect(await second.stop('SIGTERM')).toBe(0);
    }
    expect(await postgresProcessesOf(first.dataDir)).toEqual([]);
  });
});
