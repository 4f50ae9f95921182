import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBusyboxTemplate } from '@corral/testing';
import { fileTree } from '../../../../test-support/file-tree.js';
import { smallContainer } from '../../../../test-support/guest-specs.js';
import { hostPath, openHost, type Host } from '../../../host/host.js';
import { runProgram } from '../../../host/run-program.js';
import type { CommandContext } from '../../command-context.js';
import { statOf } from './lxc-volumes.js';
import { NativeLxc } from './native-lxc.js';

// Two agents' container parts on this machine, each with its own host root, moving real LXC containers (root, lxc, busybox-static, zstd).

const signal = new AbortController().signal;
const TEMPLATE = '/var/lib/vz/template/cache/busybox.tar.zst';
const LXC_PATH = '/var/lib/corral/lxc';

const ct = (vmid: number) => smallContainer(vmid);

describe('container migration between two native agents', () => {
  let dir: string;
  let source: { host: Host; lxc: NativeLxc };
  let target: { host: Host; lxc: NativeLxc };
  const logs: string[] = [];
  const context: CommandContext = { signal, log: (line) => logs.push(line) };
  const root = (side: { host: Host }, vmid: number) => hostPath(side.host, `/var/lib/vz/images/${vmid}/subvol-${vmid}-disk-0`);
  const side = async (name: string) => {
    const host = await openHost(await mkdtemp(join(dir, `${name}-`)));
    return { host, lxc: new NativeLxc(host) };
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-lxc-migrate-'));
    [source, target] = [await side('source'), await side('target')];
    await buildBusyboxTemplate(hostPath(source.host, TEMPLATE));
    for (const vmid of [230, 231]) await source.lxc.create({ guest: ct(vmid), allocate: ['rootfs'], ostemplate: TEMPLATE }, context);
    await writeFile(join(root(source, 230), 'root/secret'), 'known content\n', { mode: 0o600 });
    await chown(join(root(source, 230), 'root/secret'), 1000, 1001);
  });

  afterAll(async () => {
    const cleanup = AbortSignal.timeout(60_000);
    for (const each of [source, target])
      for (const vmid of [230, 231])
        await runProgram('lxc-stop', ['-n', String(vmid), '-P', hostPath(each.host, LXC_PATH), '-k'], { signal: cleanup });
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses to send a running container, and live migration', async () => {
    await source.lxc.start(ct(231), context);
    const sending = {
      guest: ct(231),
      copy: ['rootfs'],
      online: false,
      target: { node: 'b', address: '127.0.0.1', nbdPort: 1, volids: {} },
    };
    await expect(source.lxc.migration.send(sending, context)).rejects.toThrow(
      "CT 231 is running: a container moves stopped (PVE's restart mode shuts it down first)",
    );
    await expect(
      target.lxc.migration.receive({ guest: ct(231), copy: ['rootfs'], online: true, listen: '127.0.0.1' }, context),
    ).rejects.toThrow('CT 231: lxc live migration is currently not implemented');
    await source.lxc.stop(231, context);
  });

  it('moves a stopped container with its tree (owners, modes, content) and config; it starts on the target, and nothing of it is left on the source', async () => {
    const before = await fileTree(root(source, 230), signal);
    // The agent aborts a command's signal once it answered: the volumes arrive after that.
    const receiving = new AbortController();
    const { nbdPort } = await target.lxc.migration.receive(
      { guest: ct(230), copy: ['rootfs'], online: false, listen: '127.0.0.1' },
      { ...context, signal: receiving.signal },
    );
    receiving.abort();
    const sent = await source.lxc.migration.send(
      {
        guest: ct(230),
        copy: ['rootfs'],
        online: false,
        target: { node: 'b', address: '127.0.0.1', nbdPort, volids: { rootfs: 'local:230/subvol-230-disk-0' } },
      },
      context,
    );
    expect(sent).toEqual({ state: 'stopped' });
    await target.lxc.migration.finish({ guest: ct(230), copy: ['rootfs'], state: 'stopped' }, context);

    expect(await fileTree(root(target, 230), signal)).toEqual(before);
    expect(await statOf(root(source, 230))).toBeUndefined();
    expect(await statOf(hostPath(source.host, `${LXC_PATH}/230`))).toBeUndefined();
    expect(await statOf(`${root(target, 230)}.corral-migrate.tar`)).toBeUndefined();
    expect(logs).toContain('copying local:230/subvol-230-disk-0 to node b');
    await target.lxc.start(ct(230), context);
    expect((await target.lxc.list(signal)).find((guest) => guest.vmid === 230)?.status).toBe('running');
    await target.lxc.stop(230, context);
  });

  it('keeps the container on the source when the target is gone, and abort removes what receive made', async () => {
    const { nbdPort } = await target.lxc.migration.receive(
      { guest: ct(231), copy: ['rootfs'], online: false, listen: '127.0.0.1' },
      context,
    );
    await target.lxc.migration.abort({ guest: ct(231), copy: ['rootfs'] }, context);
    expect(await statOf(root(target, 231))).toBeUndefined();
    const sending = { guest: ct(231), copy: ['rootfs'], online: false, target: { node: 'b', address: '127.0.0.1', nbdPort, volids: {} } };
    await expect(source.lxc.migration.send(sending, context)).rejects.toThrow('CT 231: could not copy volume rootfs');
    expect((await statOf(join(root(source, 231), 'bin/busybox')))?.isFile()).toBe(true);
    expect(await source.lxc.exists(231)).toBe(true);
    expect(await statOf(`${root(source, 231)}.corral-migrate.tar`)).toBeUndefined();
  });
});
