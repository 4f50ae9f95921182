import { connect } from 'node:net';
import { COMMANDS } from '@corral/protocol';
import type { CommandContext } from '../../drivers/command-context.js';
import { runChecked } from '../../host/run-program.js';
import { aptCommands } from './apt-commands.js';

// These run this machine's real apt: reading the index, never changing the system.

const context: CommandContext = { signal: new AbortController().signal, log: () => undefined };
const apt = aptCommands();

async function installedVersion(name: string): Promise<string> {
  return (await runChecked('dpkg-query', ['-W', '-f=${Version}', name], context)).stdout;
}

/** Whether a TCP connection to the changelog server opens, which decides what the changelog test expects. */
function reachable(url: string): Promise<boolean> {
  const { hostname, port, protocol } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || (protocol === 'https:' ? 443 : 80)), timeout: 10_000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

describe("node.apt on this machine's apt", () => {
  it('lists the upgradable packages, each with its installed version as oldVersion', async () => {
    const upgradable = await apt['node.apt.upgradable']({}, context);
    expect(COMMANDS['node.apt.upgradable'].result.parse(upgradable)).toEqual(upgradable);
    for (const entry of upgradable) {
      expect(await installedVersion(entry.arch === 'all' ? entry.package : `${entry.package}:${entry.arch}`)).toBe(entry.oldVersion);
      expect(entry.version).not.toBe(entry.oldVersion);
      expect(entry.title).not.toBe('');
    }
  }, 60_000);

  it("reads bash's changelog, or fails with apt's message when the changelog server is out of reach", async () => {
    const uri = /^'([^']+)'/.exec((await runChecked('apt-get', ['--print-uris', 'changelog', 'bash'], context)).stdout)?.[1];
    expect(uri).toMatch(/^https?:\/\//);
    const changelog = apt['node.apt.changelog']({ name: 'bash' }, context);
    if (await reachable(uri as string)) {
      await expect(changelog).resolves.toMatch(/^bash \(/);
    } else {
      await expect(changelog).rejects.toMatchObject({
        code: 'failed',
        message: expect.stringMatching(/^apt-get changelog failed: Failed to fetch https?:\/\/\S+ +Changelog unavailable for bash=/),
      });
    }
  }, 120_000);

  it('fails with not-found for a package that does not exist and for a version that does not', async () => {
    await expect(apt['node.apt.changelog']({ name: 'corral-no-such-package' }, context)).rejects.toMatchObject({
      code: 'not-found',
      message: "package 'corral-no-such-package' does not exist in apt's index",
    });
    await expect(apt['node.apt.changelog']({ name: 'bash', version: '0.1-1' }, context)).rejects.toMatchObject({
      code: 'not-found',
      message: "package 'bash=0.1-1' does not exist in apt's index",
    });
  }, 60_000);
});
