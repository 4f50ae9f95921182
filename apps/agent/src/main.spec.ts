import { waitFor } from '@corral/testing';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CREDENTIAL, NODE, TestHub } from '../test-support/test-hub.js';

// The built agent (the test target builds it first) as the process an operator runs.
const MAIN = resolve(__dirname, '../dist/main.js');

jest.setTimeout(60_000);

function startAgent(configPath: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [MAIN, '--config', configPath], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    exit,
    stderr: () => stderr,
    lines: () =>
      stderr
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('corral-agent, the built process', () => {
  let dir: string;
  let hub: TestHub | undefined;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'corral-agent-main-'))));
  afterEach(async () => {
    await hub?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function configFile(fields: Record<string, unknown>): Promise<string> {
    const path = join(dir, 'agent.json');
    await writeFile(path, JSON.stringify(fields), { mode: 0o600 });
    return path;
  }

  it('connects with its config, runs commands on its host root, reports the inventory and the guests and drains on SIGTERM', async () => {
    hub = await TestHub.start();
    const hostRoot = join(dir, 'host');
    await mkdir(join(hostRoot, 'etc'), { recursive: true });
    await writeFile(join(hostRoot, 'etc/resolv.conf'), 'search example.com\nnameserver 192.0.2.53\n');
    const agent = startAgent(
      await configFile({ url: hub.url.origin, fingerprint: hub.fingerprint, node: NODE, credential: CREDENTIAL, hostRoot }),
      { CORRAL_DRIVER: 'sim' },
    );

    const connection = await hub.connection(0);
    await waitFor(() => connection.frames.length > 0, { timeoutMs: 15_000, what: 'hello' });
    const { version } = JSON.parse(await readFile(resolve(__dirname, '../package.json'), 'utf8')) as { version: string };
    expect(connection.frames[0]).toEqual(expect.objectContaining({ type: 'hello', agentVersion: version, node: NODE }));
    connection.acking = true;
    connection.welcome();
    connection.request('r1', 'node.dns.get');
    expect(await connection.answer('r1')).toEqual(
      expect.objectContaining({ type: 'result', result: { search: ['example.com'], servers: ['192.0.2.53'] } }),
    );
    await connection.count('report', 2);
    expect(connection.ofType('report').map((report) => report.payload)).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'inventory', maxcpu: expect.any(Number) }), { kind: 'runtime', guests: [] }]),
    );

    agent.child.kill('SIGTERM');
    expect(await connection.whenClosed()).toEqual({ code: 1001, reason: 'agent stopping' });
    expect(await agent.exit).toBe(0);
    expect(agent.lines().map((line) => line.msg)).toEqual(
      expect.arrayContaining(['agent starting', 'connected', 'command succeeded', 'agent stopped']),
    );
    expect(agent.lines()).toContainEqual(expect.objectContaining({ msg: 'guest driver', driver: 'sim', reason: 'CORRAL_DRIVER=sim' }));
    expect(agent.stderr()).not.toContain(CREDENTIAL);
  });

  it('exits 1, saying why in its log, when CORRAL_DRIVER names no driver', async () => {
    const agent = startAgent(
      await configFile({ url: 'https://cp.example:8006', fingerprint: 'AB'.repeat(32), node: NODE, credential: CREDENTIAL, hostRoot: dir }),
      { CORRAL_DRIVER: 'vmware' },
    );
    expect(await agent.exit).toBe(1);
    expect(agent.lines().at(-1)).toEqual(
      expect.objectContaining({ level: 'error', msg: "CORRAL_DRIVER must be pve, native or sim, not 'vmware'" }),
    );
  });

  it('exits 1 with one JSON log line naming the field of a bad config', async () => {
    const agent = startAgent(
      await configFile({ url: 'https://cp.example:8006', fingerprint: 'AB'.repeat(32), node: 'pve_1', credential: CREDENTIAL }),
    );
    expect(await agent.exit).toBe(1);
    expect(agent.lines()).toEqual([
      expect.objectContaining({ level: 'error', msg: expect.stringContaining('node: must be a host name label') }),
    ]);
  });
});
