import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMANDS } from '@corral/protocol';
import type { CommandContext } from '../../drivers/command-context.js';
import { openHost, type Host } from '../../host/host.js';
import { runChecked, runProgram } from '../../host/run-program.js';
import { networkCommands } from './network-commands.js';

const CURRENT = `auto lo
iface lo inet loopback

iface eno1 inet manual

auto vmbr0
iface vmbr0 inet static
\taddress 192.0.2.10/24
\tgateway 192.0.2.1
\tbridge-ports eno1
\tbridge-stp off
\tbridge-fd 0
`;

const signal = new AbortController().signal;

describe('node.network on a host root', () => {
  let dir: string;
  let host: Host;
  let logged: string[];
  let context: CommandContext;
  const file = (name: string) => readFile(join(dir, 'etc/network', name), 'utf8');

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-network-'));
    await mkdir(join(dir, 'etc/network'), { recursive: true });
    await writeFile(join(dir, 'etc/network/interfaces'), CURRENT);
    host = await openHost(dir);
    logged = [];
    context = { signal, log: (line) => logged.push(line) };
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('creates into the pending file, lists the pending state with a diff, and applies it without touching the running network', async () => {
    const network = networkCommands(host);
    await expect(
      network['node.network.create'](
        { type: 'bridge', iface: 'vmbr1', autostart: true, bridgePorts: [], comments: 'isolated guests' },
        context,
      ),
    ).resolves.toBeNull();
    expect(await file('interfaces')).toBe(CURRENT);
    expect(await file('interfaces.new')).toBe(
      `${CURRENT}\nauto vmbr1\niface vmbr1 inet manual\n\tbridge-ports none\n\tbridge-stp off\n\tbridge-fd 0\n#isolated guests\n`,
    );

    const listed = await network['node.network.list']({}, context);
    expect(COMMANDS['node.network.list'].result.parse(listed)).toEqual(listed);
    expect(listed.interfaces.find((iface) => iface.iface === 'vmbr1')).toEqual({
      iface: 'vmbr1',
      type: 'bridge',
      active: false,
      exists: false,
      autostart: true,
      method: 'manual',
      method6: 'manual',
      bridgePorts: [],
      comments: 'isolated guests',
    });
    expect(listed.changes).toBe(
      '--- /etc/network/interfaces\n+++ /etc/network/interfaces.new\n@@ -10,3 +10,10 @@\n \tbridge-ports eno1\n \tbridge-stp off\n \tbridge-fd 0\n+\n+auto vmbr1\n+iface vmbr1 inet manual\n+\tbridge-ports none\n+\tbridge-stp off\n+\tbridge-fd 0\n+#isolated guests\n',
    );

    // A second change edits the pending file, not the current one.
    await network['node.network.delete']({ iface: 'vmbr0' }, context);
    expect(await file('interfaces.new')).toBe(
      'auto lo\niface lo inet loopback\n\niface eno1 inet manual\n\nauto vmbr1\niface vmbr1 inet manual\n\tbridge-ports none\n\tbridge-stp off\n\tbridge-fd 0\n#isolated guests\n',
    );

    await expect(network['node.network.apply']({}, context)).resolves.toBeNull();
    expect(await file('interfaces')).toBe(
      'auto lo\niface lo inet loopback\n\niface eno1 inet manual\n\nauto vmbr1\niface vmbr1 inet manual\n\tbridge-ports none\n\tbridge-stp off\n\tbridge-fd 0\n#isolated guests\n',
    );
    await expect(file('interfaces.new')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(logged).toEqual([`host root ${host.root} is not the running system: /etc/network/interfaces written, the network not reloaded`]);
    expect((await network['node.network.list']({}, context)).changes).toBeUndefined();
  });

  it('says so when nothing is pending', async () => {
    await networkCommands(host)['node.network.apply']({}, context);
    expect(logged[0]).toBe('no pending network changes');
    expect(await file('interfaces')).toBe(CURRENT);
  });

  it('refuses a name the file or the kernel has, and deleting one the file does not have', async () => {
    const network = networkCommands(host);
    await expect(network['node.network.create']({ type: 'bridge', iface: 'vmbr0' }, context)).rejects.toMatchObject({
      code: 'failed',
      message: "interface 'vmbr0' already exists in /etc/network/interfaces",
    });
    // The loopback is in every kernel: a file without it still cannot define a second one.
    await writeFile(join(dir, 'etc/network/interfaces'), 'iface eno1 inet manual\n');
    await expect(network['node.network.create']({ type: 'bridge', iface: 'lo' }, context)).rejects.toMatchObject({
      code: 'failed',
      message: "interface 'lo' already exists on the host",
    });
    await expect(network['node.network.delete']({ iface: 'vmbr9' }, context)).rejects.toMatchObject({
      code: 'not-found',
      message: "interface 'vmbr9' does not exist in /etc/network/interfaces",
    });
    await expect(file('interfaces.new')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('starts from an empty file on a host root without one', async () => {
    await rm(join(dir, 'etc/network/interfaces'));
    const network = networkCommands(host);
    await network['node.network.create']({ type: 'vlan', iface: 'eno1.20', autostart: true }, context);
    expect(await file('interfaces.new')).toBe('auto eno1.20\niface eno1.20 inet manual\n');
    expect((await network['node.network.list']({}, context)).changes).toBe(
      '--- /etc/network/interfaces\n+++ /etc/network/interfaces.new\n@@ -0,0 +1,2 @@\n+auto eno1.20\n+iface eno1.20 inet manual\n',
    );
  });

  it("shows the kernel's state of an interface the file defines", async () => {
    const bridge = `crt${process.pid}`.slice(0, 15);
    await runChecked('ip', ['link', 'add', bridge, 'type', 'bridge'], { signal });
    try {
      await writeFile(join(dir, 'etc/network/interfaces'), `auto ${bridge}\niface ${bridge} inet manual\n\tbridge-ports none\n`);
      const network = networkCommands(host);
      const find = async () => (await network['node.network.list']({}, context)).interfaces.find((iface) => iface.iface === bridge);
      expect(await find()).toMatchObject({ type: 'bridge', exists: true, active: false });
      await runChecked('ip', ['link', 'set', bridge, 'up'], { signal });
      expect(await find()).toMatchObject({ type: 'bridge', exists: true, active: true });
    } finally {
      await runProgram('ip', ['link', 'del', bridge], { signal });
    }
  });

  it('refuses to apply on a live host without ifreload, before changing anything', async () => {
    const path = process.env['PATH'];
    process.env['PATH'] = dir; // a directory without ifreload
    try {
      await expect(networkCommands(await openHost('/'))['node.network.apply']({}, context)).rejects.toMatchObject({
        code: 'unavailable',
        message: 'ifreload is not installed on this host (Debian package ifupdown2): the changes stay in /etc/network/interfaces.new',
      });
    } finally {
      process.env['PATH'] = path;
    }
  });
});
