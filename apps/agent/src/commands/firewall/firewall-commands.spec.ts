import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FirewallRuleset } from '@corral/protocol';
import type { CommandContext } from '../../drivers/command-context.js';
import { openHost, type Host } from '../../host/host.js';
import { runChecked, runProgram } from '../../host/run-program.js';
import { firewallCommands } from './firewall-commands.js';
import { REMOVE_TABLE, renderRuleset } from './nft-ruleset.js';

// Needs nft (tools/test-deps.sh installs nftables) and root: without them these tests fail.

const signal = new AbortController().signal;

const RULESET = FirewallRuleset.parse({
  enabled: true,
  policyIn: 'DROP',
  policyOut: 'REJECT',
  aliases: [
    { name: 'admin-net', cidr: '198.51.100.0/24' },
    { name: 'admin6', cidr: '2001:db8:1::/64' },
  ],
  rules: [
    {
      type: 'in',
      action: 'ACCEPT',
      enabled: true,
      source: ['admin-net', 'ADMIN6'],
      proto: 'tcp',
      dport: ['22', '8006', '5900:5999'],
      log: 'info',
      comment: 'operators',
    },
    { type: 'in', action: 'ACCEPT', enabled: true, proto: 'icmp', icmpType: 'echo-request' },
    { type: 'in', action: 'ACCEPT', enabled: true, proto: 'icmpv6', icmpType: 'echo-request' },
    { type: 'in', action: 'REJECT', enabled: true, iface: 'vmbr0', proto: '17', sport: ['53'], log: 'warning' },
    { type: 'out', action: 'ACCEPT', enabled: true, dest: ['192.0.2.0/24', '2001:db8::/32'], proto: 'udp', dport: ['domain', 'ntp'] },
    { type: 'out', action: 'DROP', enabled: true, proto: 'sctp', dport: ['9'] },
    { type: 'out', action: 'ACCEPT', enabled: true, proto: 'gre' },
  ],
});

describe('node.firewall.apply', () => {
  let dir: string;
  let host: Host;
  let logged: string[];
  let context: CommandContext;
  const written = () => readFile(join(dir, 'etc/corral/firewall.nft'), 'utf8');

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-firewall-'));
    host = await openHost(dir);
    logged = [];
    context = { signal, log: (line) => logged.push(line) };
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes the rendered ruleset under the host root, has nft check it, and leaves the kernel alone on a host root that is not live', async () => {
    await expect(firewallCommands(host)['node.firewall.apply'](RULESET, context)).resolves.toEqual({ checked: true, applied: false });
    expect(await written()).toBe(renderRuleset(RULESET));
    expect(logged).toEqual([
      `host root ${host.root} is not the running system: /etc/corral/firewall.nft written and checked, the kernel's firewall left alone`,
    ]);
  });

  it('checks a disabled ruleset too', async () => {
    await expect(firewallCommands(host)['node.firewall.apply']({ ...RULESET, enabled: false }, context)).resolves.toEqual({
      checked: true,
      applied: false,
    });
    expect(await written()).toContain('# Disabled: the agent does not load this table');
  });

  it("fails with nft's message when nft refuses the ruleset", async () => {
    const ruleset = FirewallRuleset.parse({ ...RULESET, rules: [{ type: 'in', action: 'ACCEPT', enabled: true, proto: 'nosuchproto' }] });
    await expect(firewallCommands(host)['node.firewall.apply'](ruleset, context)).rejects.toMatchObject({
      code: 'failed',
      message: expect.stringMatching(/^nft refused the ruleset: .*firewall\.nft:[0-9]+:[0-9]+-[0-9]+: Error: .*\n.*nosuchproto/),
    });
  });

  it('renders a file a kernel loads, replaces and removes, here in a network namespace of its own', async () => {
    await firewallCommands(host)['node.firewall.apply'](RULESET, context);
    const file = join(dir, 'etc/corral/firewall.nft');
    const namespace = `corral-test-${process.pid}`;
    const inNamespace = (args: string[], input?: string) =>
      runChecked('ip', ['netns', 'exec', namespace, 'nft', ...args], { signal, input });
    await runChecked('ip', ['netns', 'add', namespace], { signal });
    try {
      await inNamespace(['-f', file]);
      await inNamespace(['-f', file]); // a second load replaces the table in one transaction
      const table = (await inNamespace(['list', 'table', 'inet', 'corral'])).stdout;
      expect(table).toContain('type filter hook input priority filter; policy drop;');
      // nft lists sets sorted and leaves out its default log level (warn).
      expect(table).toContain(
        'ip saddr 198.51.100.0/24 tcp dport { 22, 5900-5999, 8006 } log prefix "corral in 0 ACCEPT: " level info accept',
      );
      expect(table).toContain(
        'ip6 saddr 2001:db8:1::/64 tcp dport { 22, 5900-5999, 8006 } log prefix "corral in 0 ACCEPT: " level info accept',
      );
      expect(table).toContain('iifname "vmbr0" udp sport 53 log prefix "corral in 3 REJECT: " reject');
      expect(table).toMatch(/meta l4proto gre accept\n\t\treject\n\t}\n}/);
      await inNamespace(['-f', '-'], REMOVE_TABLE);
      expect((await inNamespace(['list', 'tables'])).stdout).not.toContain('corral');
      await inNamespace(['-f', '-'], REMOVE_TABLE); // and removing is idempotent
    } finally {
      await runProgram('ip', ['netns', 'del', namespace], { signal });
    }
  });

  it('answers unavailable on a live host without nft, before writing anything', async () => {
    const path = process.env['PATH'];
    process.env['PATH'] = dir; // a directory without nft
    try {
      await expect(firewallCommands(await openHost('/'))['node.firewall.apply'](RULESET, context)).rejects.toMatchObject({
        code: 'unavailable',
        message: 'nft is not installed on this host (Debian package nftables)',
      });
    } finally {
      process.env['PATH'] = path;
    }
  });

  it('writes but cannot check where nft is missing on a host root that is not live', async () => {
    const path = process.env['PATH'];
    process.env['PATH'] = dir;
    try {
      await expect(firewallCommands(host)['node.firewall.apply'](RULESET, context)).resolves.toEqual({ checked: false, applied: false });
    } finally {
      process.env['PATH'] = path;
    }
    expect(await written()).toBe(renderRuleset(RULESET));
    expect(logged).toEqual(['nft is not installed: /etc/corral/firewall.nft written, not checked']);
  });
});
