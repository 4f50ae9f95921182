import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandContext } from '../../drivers/command-context.js';
import { openHost, type Host } from '../../host/host.js';
import { dnsCommands } from './dns-commands.js';

const context: CommandContext = { signal: new AbortController().signal, log: () => undefined };

describe('node.dns.get and node.dns.set on a host root', () => {
  let dir: string;
  let host: Host;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-dns-'));
    host = await openHost(dir);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('gets empty lists when the host has no resolv.conf', async () => {
    await expect(dnsCommands(host)['node.dns.get']({}, context)).resolves.toEqual({ search: [], servers: [] });
  });

  it('sets the host root resolv.conf, keeping its other lines, and gets back what it set', async () => {
    await mkdir(join(dir, 'etc'));
    await writeFile(join(dir, 'etc/resolv.conf'), '# from dhcp\nsearch old.example\nnameserver 198.51.100.1\noptions timeout:2\n');
    const dns = dnsCommands(host);
    await expect(dns['node.dns.set']({ search: ['example.com'], servers: ['192.0.2.53', '2001:db8::53'] }, context)).resolves.toBeNull();
    expect(await readFile(join(dir, 'etc/resolv.conf'), 'utf8')).toBe(
      '# from dhcp\nsearch example.com\nnameserver 192.0.2.53\nnameserver 2001:db8::53\noptions timeout:2\n',
    );
    await expect(dns['node.dns.get']({}, context)).resolves.toEqual({ search: ['example.com'], servers: ['192.0.2.53', '2001:db8::53'] });
  });

  it('creates resolv.conf on a host root that has none', async () => {
    await dnsCommands(host)['node.dns.set']({ search: [], servers: ['192.0.2.53'] }, context);
    expect(await readFile(join(dir, 'etc/resolv.conf'), 'utf8')).toBe('nameserver 192.0.2.53\n');
  });
});
