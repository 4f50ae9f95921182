import type { FirewallRule, FirewallRuleset, RequestFrame } from '@corral/protocol';
import type { FakeAgent, FakeAnswer } from '@corral/testing';
import { call, dataOf, expectError, type Form } from '../../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { ClusterModule } from '../../cluster/cluster.module.js';
import { NodeFirewallModule } from './firewall.module.js';

const APPLIED: FakeAnswer = { result: { checked: true, applied: true } };
const MODIFIED = 'detected modified configuration - file changed by other user? Try again.';

/** The ruleset the agent must get: PVE's defaults unless `options` says otherwise. */
const ruleset = (
  rules: FirewallRuleset['rules'],
  aliases: FirewallRuleset['aliases'] = [],
  options: Partial<FirewallRuleset> = {},
): FirewallRuleset => ({
  enabled: false,
  policyIn: 'DROP',
  policyOut: 'ACCEPT',
  aliases,
  rules,
  ...options,
});

describe('the node firewall API', () => {
  let t: TestApp;
  const agents: FakeAgent[] = [];

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, NodeFirewallModule] });
  });
  afterAll(async () => {
    for (const agent of agents) agent.close();
    await t.close();
  });

  const path = (node: string, rest = '') => `/nodes/${node}/firewall${rest}`;
  const ok = async (method: string, to: string, form?: Form) => expect(dataOf(await call(t, method, to, form ? { form } : {}))).toBeNull();

  /**
   * A joined node whose fake agent records every request and answers as `answer.current` says. Its
   * firewall is stored (with the defaults) before the agent comes, unless `stored` is false, so the
   * push at the welcome is awaited here and cannot land in the middle of a test.
   */
  async function nodeWithAgent(node: string, stored = true): Promise<{ asked: RequestFrame[]; answer: { current: FakeAnswer } }> {
    const credential = await joinNode(t, node);
    if (stored) await ok('PUT', path(node, '/options'));
    const asked: RequestFrame[] = [];
    const answer = { current: APPLIED };
    const agent = await onlineAgent(t, node, credential, {
      answer: (request) => {
        asked.push(request);
        return answer.current;
      },
    });
    agents.push(agent);
    if (stored) {
      expect((await agent.next('request')).params).toEqual(ruleset([]));
      asked.length = 0;
    }
    return { asked, answer };
  }

  const rulesOf = async (node: string) => dataOf<Record<string, unknown>[]>(await call(t, 'GET', path(node, '/rules')));
  const sent = (asked: RequestFrame[]) => {
    const last = asked.at(-1);
    expect(last?.command).toBe('node.firewall.apply');
    return last?.params;
  };

  it('keeps rules in PVE order (new rules first, `pos` inserts), expands macros, and sends the agent the whole ruleset with its aliases', async () => {
    const { asked } = await nodeWithAgent('fw-order');
    expect(dataOf(await call(t, 'GET', path('fw-order')))).toEqual([{ name: 'aliases' }, { name: 'options' }, { name: 'rules' }]);
    expect(await rulesOf('fw-order')).toEqual([]);

    await ok('POST', path('fw-order', '/aliases'), { name: 'office', cidr: '192.0.2.0/24', comment: 'HQ' });
    expect(sent(asked)).toEqual(ruleset([], [{ name: 'office', cidr: '192.0.2.0/24', comment: 'HQ' }]));

    await ok('POST', path('fw-order', '/rules'), { type: 'in', action: 'ACCEPT', macro: 'ssh', source: 'office', enable: 1 });
    await ok('POST', path('fw-order', '/rules'), { type: 'in', action: 'ACCEPT', proto: 'tcp', dport: '80,8000:8100', comment: 'web' });
    await ok('POST', path('fw-order', '/rules'), { type: 'in', action: 'ACCEPT', macro: 'Ping', pos: 1, log: 'info' });
    await ok('POST', path('fw-order', '/rules'), {
      type: 'out',
      action: 'REJECT',
      dest: '198.51.100.7,2001:db8::/32',
      proto: 'udp',
      sport: '53',
      enable: 1,
      pos: 99,
    });

    const web: FirewallRule = { type: 'in', action: 'ACCEPT', enabled: false, proto: 'tcp', dport: ['80', '8000:8100'], comment: 'web' };
    const ping: FirewallRule = { type: 'in', action: 'ACCEPT', enabled: false, proto: 'icmp', icmpType: 'echo-request', log: 'info' };
    const ssh: FirewallRule = { type: 'in', action: 'ACCEPT', enabled: true, source: ['office'], proto: 'tcp', dport: ['22'] };
    const out: FirewallRule = {
      type: 'out',
      action: 'REJECT',
      enabled: true,
      dest: ['198.51.100.7', '2001:db8::/32'],
      proto: 'udp',
      sport: ['53'],
    };
    expect(sent(asked)).toEqual(ruleset([web, ping, ssh, out], [{ name: 'office', cidr: '192.0.2.0/24', comment: 'HQ' }]));

    // PVE's view: comma lists, enable 0/1, a macro's rule without what the macro sets, one digest for the list.
    const rules = await rulesOf('fw-order');
    const digest = rules[0]?.digest;
    expect(digest).toMatch(/^[0-9a-f]{40}$/);
    expect(rules).toEqual([
      { pos: 0, type: 'in', action: 'ACCEPT', enable: 0, proto: 'tcp', dport: '80,8000:8100', comment: 'web', digest },
      { pos: 1, type: 'in', action: 'ACCEPT', enable: 0, macro: 'Ping', log: 'info', digest },
      { pos: 2, type: 'in', action: 'ACCEPT', enable: 1, macro: 'SSH', source: 'office', digest },
      { pos: 3, type: 'out', action: 'REJECT', enable: 1, dest: '198.51.100.7,2001:db8::/32', proto: 'udp', sport: '53', digest },
    ]);
    expect(dataOf(await call(t, 'GET', path('fw-order', '/rules/2')))).toEqual(rules[2]);
  });

  it('moves a rule before the one at `moveto` (PVE), changes and clears fields, swaps macros, and deletes by position', async () => {
    const { asked } = await nodeWithAgent('fw-edit');
    for (const dport of ['3', '2', '1', '0'])
      await ok('POST', path('fw-edit', '/rules'), { type: 'in', action: 'ACCEPT', proto: 'tcp', dport: `100${dport}`, enable: 1 });
    const order = async () => ((sent(asked) as FirewallRuleset).rules ?? []).map((rule) => rule.dport?.join());
    expect(await order()).toEqual(['1000', '1001', '1002', '1003']);

    // Down: lands before the rule that was at 3, so at 2; up: at the position given; past the end: last.
    await ok('PUT', path('fw-edit', '/rules/0'), { moveto: 3, comment: 'ignored with moveto' });
    expect(await order()).toEqual(['1001', '1002', '1000', '1003']);
    await ok('PUT', path('fw-edit', '/rules/3'), { moveto: 0 });
    expect(await order()).toEqual(['1003', '1001', '1002', '1000']);
    await ok('PUT', path('fw-edit', '/rules/0'), { moveto: 10 });
    expect(await order()).toEqual(['1001', '1002', '1000', '1003']);
    expect((sent(asked) as FirewallRuleset).rules.some((rule) => rule.comment !== undefined)).toBe(false);

    await ok('PUT', path('fw-edit', '/rules/1'), { comment: 'db', source: '10.0.0.0/8', enable: 0, iface: 'vmbr0' });
    await ok('PUT', path('fw-edit', '/rules/1'), { delete: 'source,comment', action: 'DROP' });
    expect((sent(asked) as FirewallRuleset).rules[1]).toEqual({
      type: 'in',
      action: 'DROP',
      enabled: false,
      iface: 'vmbr0',
      proto: 'tcp',
      dport: ['1002'],
    });

    // A macro replaces proto and dport only once they are cleared; clearing the macro clears what it set.
    expectError(await call(t, 'PUT', path('fw-edit', '/rules/1'), { form: { macro: 'HTTPS' } }), 400, "macro 'HTTPS'", 'proto');
    await ok('PUT', path('fw-edit', '/rules/1'), { macro: 'HTTPS', delete: 'proto dport' });
    expect((sent(asked) as FirewallRuleset).rules[1]).toEqual({
      type: 'in',
      action: 'DROP',
      enabled: false,
      iface: 'vmbr0',
      proto: 'tcp',
      dport: ['443'],
    });
    expect((await rulesOf('fw-edit'))[1]).toEqual(expect.objectContaining({ macro: 'HTTPS', iface: 'vmbr0' }));
    await ok('PUT', path('fw-edit', '/rules/1'), { macro: 'NTP' });
    expect((sent(asked) as FirewallRuleset).rules[1]).toEqual(expect.objectContaining({ proto: 'udp', dport: ['123'] }));
    await ok('PUT', path('fw-edit', '/rules/1'), { delete: 'macro', proto: 'sctp', dport: '9899' });
    expect((sent(asked) as FirewallRuleset).rules[1]).toEqual({
      type: 'in',
      action: 'DROP',
      enabled: false,
      iface: 'vmbr0',
      proto: 'sctp',
      dport: ['9899'],
    });
    expect((await rulesOf('fw-edit'))[1]).not.toHaveProperty('macro');

    await ok('DELETE', path('fw-edit', '/rules/0'));
    expect(await order()).toEqual(['9899', '1000', '1003']);
    expect((await rulesOf('fw-edit')).map((rule) => rule.pos)).toEqual([0, 1, 2]);
  });

  it('keeps aliases by name without regard to case, renames them in the rules that use them, and refuses to delete one in use', async () => {
    const { asked } = await nodeWithAgent('fw-alias');
    await ok('POST', path('fw-alias', '/aliases'), { name: 'zeta', cidr: '2001:db8::1' });
    await ok('POST', path('fw-alias', '/aliases'), { name: 'Office', cidr: '192.0.2.0/24', comment: 'HQ' });
    expectError(
      await call(t, 'POST', path('fw-alias', '/aliases'), { form: { name: 'OFFICE', cidr: '192.0.2.1' } }),
      409,
      "alias 'OFFICE' already exists",
    );
    const aliases = dataOf<{ name: string; digest: string }[]>(await call(t, 'GET', path('fw-alias', '/aliases')));
    expect(aliases).toEqual([
      { name: 'Office', cidr: '192.0.2.0/24', comment: 'HQ', digest: expect.stringMatching(/^[0-9a-f]{40}$/) },
      { name: 'zeta', cidr: '2001:db8::1', digest: aliases[0]?.digest },
    ]);
    expect(dataOf(await call(t, 'GET', path('fw-alias', '/aliases/office')))).toEqual(aliases[0]);

    await ok('POST', path('fw-alias', '/rules'), { type: 'in', action: 'ACCEPT', source: 'office,198.51.100.1', dest: 'zeta' });
    expectError(await call(t, 'DELETE', path('fw-alias', '/aliases/Office')), 409, "alias 'Office' is used by the rules at positions 0");
    expectError(
      await call(t, 'PUT', path('fw-alias', '/aliases/office'), { form: { cidr: '192.0.2.0/25', rename: 'ZETA' } }),
      409,
      "alias 'ZETA' already exists",
    );

    await ok('PUT', path('fw-alias', '/aliases/office'), { cidr: '192.0.2.0/25', rename: 'hq' });
    expect(sent(asked)).toEqual(
      ruleset(
        [{ type: 'in', action: 'ACCEPT', enabled: false, source: ['hq', '198.51.100.1'], dest: ['zeta'] }],
        [
          { name: 'hq', cidr: '192.0.2.0/25' },
          { name: 'zeta', cidr: '2001:db8::1' },
        ],
      ),
    );
    expectError(await call(t, 'GET', path('fw-alias', '/aliases/office')), 404, "alias 'office' does not exist");

    await ok('DELETE', path('fw-alias', '/rules/0'));
    await ok('DELETE', path('fw-alias', '/aliases/HQ'));
    expect(sent(asked)).toEqual(ruleset([], [{ name: 'zeta', cidr: '2001:db8::1' }]));
  });

  it("has PVE's default options, changes them and clears them back with `delete`", async () => {
    const { asked } = await nodeWithAgent('fw-options');
    const defaults = dataOf<{ digest: string }>(await call(t, 'GET', path('fw-options', '/options')));
    expect(defaults).toEqual({ enable: 0, policy_in: 'DROP', policy_out: 'ACCEPT', digest: expect.stringMatching(/^[0-9a-f]{40}$/) });

    await ok('PUT', path('fw-options', '/options'), { enable: 1, policy_in: 'REJECT', policy_out: 'DROP', digest: defaults.digest });
    expect(sent(asked)).toEqual(ruleset([], [], { enabled: true, policyIn: 'REJECT', policyOut: 'DROP' }));
    expect(dataOf(await call(t, 'GET', path('fw-options', '/options')))).toEqual(
      expect.objectContaining({ enable: 1, policy_in: 'REJECT', policy_out: 'DROP' }),
    );

    await ok('PUT', path('fw-options', '/options'), { delete: 'policy_in;policy_out' });
    expect(sent(asked)).toEqual(ruleset([], [], { enabled: true }));
    expect(dataOf(await call(t, 'GET', path('fw-options', '/options')))).toEqual({
      ...defaults,
      enable: 1,
      digest: expect.not.stringMatching(defaults.digest),
    });
  });

  it("refuses a change based on a stale digest with 409 and PVE's message, each part (rules, aliases, options) digested apart", async () => {
    const { asked } = await nodeWithAgent('fw-digest');
    await ok('POST', path('fw-digest', '/rules'), { type: 'in', action: 'ACCEPT', proto: 'tcp', dport: '22' });
    const [first] = await rulesOf('fw-digest');
    const stale = String(first?.digest);
    await ok('PUT', path('fw-digest', '/rules/0'), { comment: 'first edit', digest: stale });
    const before = asked.length;

    expectError(await call(t, 'PUT', path('fw-digest', '/rules/0'), { form: { comment: 'second edit', digest: stale } }), 409, MODIFIED);
    expectError(await call(t, 'DELETE', path('fw-digest', '/rules/0'), { query: `digest=${stale}` }), 409, MODIFIED);
    expectError(
      await call(t, 'POST', path('fw-digest', '/rules'), { form: { type: 'out', action: 'DROP', digest: stale } }),
      409,
      MODIFIED,
    );
    expect(asked.length).toBe(before);
    expect(await rulesOf('fw-digest')).toEqual([expect.objectContaining({ comment: 'first edit' })]);

    // The aliases' digest does not change with the rules.
    await ok('POST', path('fw-digest', '/aliases'), { name: 'lab', cidr: '203.0.113.0/24' });
    const [{ digest: aliasesDigest = '' } = {}] = dataOf<{ digest: string }[]>(await call(t, 'GET', path('fw-digest', '/aliases')));
    await ok('POST', path('fw-digest', '/rules'), { type: 'in', action: 'ACCEPT', source: 'lab' });
    await ok('PUT', path('fw-digest', '/aliases/lab'), { cidr: '203.0.113.0/25', digest: aliasesDigest });
    expectError(await call(t, 'DELETE', path('fw-digest', '/aliases/lab'), { query: `digest=${aliasesDigest}` }), 409, MODIFIED);

    const { digest: optionsDigest } = dataOf<{ digest: string }>(await call(t, 'GET', path('fw-digest', '/options')));
    await ok('PUT', path('fw-digest', '/options'), { policy_out: 'DROP', digest: optionsDigest });
    expectError(
      await call(t, 'PUT', path('fw-digest', '/options'), { form: { policy_out: 'ACCEPT', digest: optionsDigest } }),
      409,
      MODIFIED,
    );
  });

  it('rolls a change back when the agent refuses the ruleset, answering 500 with its message', async () => {
    const { asked, answer } = await nodeWithAgent('fw-refused', false);
    answer.current = { failure: 'failed', message: 'nft -c: Error: Could not process rule: No such file or directory' };
    expectError(
      await call(t, 'POST', path('fw-refused', '/rules'), { form: { type: 'in', action: 'ACCEPT', iface: 'nosuch0' } }),
      500,
      'nft -c: Error: Could not process rule',
    );
    expect(sent(asked)).toEqual(ruleset([{ type: 'in', action: 'ACCEPT', enabled: false, iface: 'nosuch0' }]));
    // Nothing stored, not even the node's row with the defaults.
    expect(await rulesOf('fw-refused')).toEqual([]);
    expect(await t.dataSource.query('SELECT "node" FROM "node_firewalls" WHERE "node" = $1', ['fw-refused'])).toEqual([]);

    answer.current = APPLIED;
    await ok('POST', path('fw-refused', '/aliases'), { name: 'lab', cidr: '203.0.113.0/24' });
    answer.current = { failure: 'failed', message: 'nft -c: Error: syntax error' };
    expectError(await call(t, 'PUT', path('fw-refused', '/options'), { form: { enable: 1 } }), 500, 'nft -c: Error: syntax error');
    expectError(await call(t, 'DELETE', path('fw-refused', '/aliases/lab')), 500, 'nft -c: Error: syntax error');
    expect(dataOf(await call(t, 'GET', path('fw-refused', '/options')))).toEqual(expect.objectContaining({ enable: 0 }));
    expect(dataOf(await call(t, 'GET', path('fw-refused', '/aliases')))).toEqual([expect.objectContaining({ name: 'lab' })]);
  });

  it('stores changes for a node that is offline, and pushes the stored ruleset when its agent is welcomed', async () => {
    const credential = await joinNode(t, 'fw-offline');
    await ok('POST', path('fw-offline', '/aliases'), { name: 'admins', cidr: '198.51.100.0/24' });
    await ok('POST', path('fw-offline', '/rules'), { type: 'in', action: 'ACCEPT', macro: 'HTTPS', source: 'admins', enable: 1 });
    await ok('PUT', path('fw-offline', '/options'), { enable: 1 });
    expect((await rulesOf('fw-offline'))[0]).toEqual(expect.objectContaining({ macro: 'HTTPS', source: 'admins' }));

    const agent = await onlineAgent(t, 'fw-offline', credential, { answer: () => APPLIED });
    agents.push(agent);
    const pushed = await agent.next('request');
    expect({ command: pushed.command, params: pushed.params }).toEqual({
      command: 'node.firewall.apply',
      params: ruleset(
        [{ type: 'in', action: 'ACCEPT', enabled: true, source: ['admins'], proto: 'tcp', dport: ['443'] }],
        [{ name: 'admins', cidr: '198.51.100.0/24' }],
        { enabled: true },
      ),
    });
  });

  it('answers 404 for an unknown node, rule position or alias', async () => {
    await nodeWithAgent('fw-missing');
    for (const [method, to] of [
      ['GET', '/rules'],
      ['GET', ''],
      ['GET', '/options'],
      ['GET', '/aliases'],
    ] as const) {
      expectError(await call(t, method, path('nowhere', to)), 404, "node 'nowhere' does not exist");
    }
    expectError(
      await call(t, 'POST', path('nowhere', '/rules'), { form: { type: 'in', action: 'ACCEPT' } }),
      404,
      "node 'nowhere' does not exist",
    );
    expectError(await call(t, 'PUT', path('nowhere', '/options'), { form: { enable: 1 } }), 404, "node 'nowhere' does not exist");

    await ok('POST', path('fw-missing', '/rules'), { type: 'in', action: 'ACCEPT' });
    expectError(await call(t, 'GET', path('fw-missing', '/rules/1')), 404, 'rule at position 1 does not exist');
    expectError(await call(t, 'PUT', path('fw-missing', '/rules/1'), { form: { comment: 'x' } }), 404, 'rule at position 1 does not exist');
    expectError(await call(t, 'PUT', path('fw-missing', '/rules/1'), { form: { moveto: 0 } }), 404, 'rule at position 1 does not exist');
    expectError(await call(t, 'DELETE', path('fw-missing', '/rules/1')), 404, 'rule at position 1 does not exist');
    expectError(await call(t, 'GET', path('fw-missing', '/aliases/ghost')), 404, "alias 'ghost' does not exist");
    expectError(
      await call(t, 'PUT', path('fw-missing', '/aliases/ghost'), { form: { cidr: '192.0.2.1' } }),
      404,
      "alias 'ghost' does not exist",
    );
    expectError(await call(t, 'DELETE', path('fw-missing', '/aliases/ghost')), 404, "alias 'ghost' does not exist");
  });

  it('refuses bad input with 400 naming the parameter, before anything reaches the agent', async () => {
    const { asked } = await nodeWithAgent('fw-bad');
    await ok('POST', path('fw-bad', '/rules'), { type: 'in', action: 'ACCEPT', proto: 'tcp', dport: '22' });
    await ok('POST', path('fw-bad', '/aliases'), { name: 'lab', cidr: '203.0.113.0/24' });
    const before = asked.length;
    const rule = { type: 'in', action: 'ACCEPT' };
    const cases: [string, string, Form, string, string][] = [
      ['POST', '/rules', { action: 'ACCEPT' }, 'type', 'missing'],
      ['POST', '/rules', { type: 'in' }, 'action', 'missing'],
      ['POST', '/rules', { ...rule, type: 'forward' }, 'type', ''],
      ['POST', '/rules', { ...rule, action: 'my-group' }, 'action', ''],
      ['POST', '/rules', { ...rule, enable: -1 }, 'enable', 'at least 0'],
      ['POST', '/rules', { ...rule, iface: 'eth 0' }, 'iface', 'interface name'],
      ['POST', '/rules', { ...rule, source: '192.0.2.300' }, 'source', 'IP address, a CIDR or an alias name'],
      ['POST', '/rules', { ...rule, source: '+ipset' }, 'source', 'IP address, a CIDR or an alias name'],
      ['POST', '/rules', { ...rule, dest: 'nowhere' }, 'dest', "unknown alias 'nowhere'"],
      ['POST', '/rules', { ...rule, proto: 'tcp/udp' }, 'proto', 'protocol'],
      ['POST', '/rules', { ...rule, proto: '256' }, 'proto', 'up to 255'],
      ['POST', '/rules', { ...rule, proto: 'tcp', dport: '70000' }, 'dport', '65535'],
      ['POST', '/rules', { ...rule, proto: 'tcp', dport: '90:80' }, 'dport', 'ascending'],
      ['POST', '/rules', { ...rule, proto: 'tcp', sport: '1,,2' }, 'sport', 'port'],
      ['POST', '/rules', { ...rule, dport: '22' }, 'proto', 'ports need a proto'],
      ['POST', '/rules', { ...rule, proto: 'icmp', dport: '22' }, 'proto', 'ports need a proto'],
      ['POST', '/rules', { ...rule, proto: 'tcp', 'icmp-type': 'echo-request' }, 'icmp-type', 'needs proto icmp'],
      ['POST', '/rules', { ...rule, log: 'loud' }, 'log', ''],
      ['POST', '/rules', { ...rule, comment: 'two\nlines' }, 'comment', 'one line'],
      ['POST', '/rules', { ...rule, macro: 'Gopher' }, 'macro', "unknown macro 'Gopher'"],
      ['POST', '/rules', { ...rule, macro: 'DNS' }, 'macro', 'more than one protocol'],
      ['POST', '/rules', { ...rule, macro: 'SSH', proto: 'udp' }, 'proto', "cannot be combined with macro 'SSH'"],
      ['POST', '/rules', { ...rule, macro: 'SSH', dport: '2222' }, 'dport', "cannot be combined with macro 'SSH'"],
      ['POST', '/rules', { ...rule, macro: 'Ping', 'icmp-type': 'echo-reply' }, 'icmp-type', "cannot be combined with macro 'Ping'"],
      ['POST', '/rules', { ...rule, pos: -1 }, 'pos', 'at least 0'],
      ['POST', '/rules', { ...rule, digest: 'x'.repeat(65) }, 'digest', 'at most 64'],
      ['POST', '/rules', { ...rule, moveto: 1 }, 'moveto', 'unknown parameter'],
      ['PUT', '/rules/0', { moveto: 'first' }, 'moveto', 'expected an integer'],
      ['PUT', '/rules/0', { delete: 'type' }, 'delete', ''],
      ['PUT', '/rules/0', { delete: 'comment', comment: 'kept?' }, 'delete', "cannot both set and delete 'comment'"],
      ['PUT', '/rules/0', { delete: 'proto' }, 'proto', 'ports need a proto'],
      ['PUT', '/rules/x', { comment: 'x' }, 'pos', 'expected an integer'],
      ['POST', '/aliases', { name: '1st', cidr: '192.0.2.1' }, 'name', 'alias name'],
      ['POST', '/aliases', { name: 'x', cidr: '192.0.2.1' }, 'name', 'alias name'],
      ['POST', '/aliases', { name: 'web', cidr: 'example.com' }, 'cidr', 'IP address or a CIDR'],
      ['POST', '/aliases', { name: 'web', cidr: '192.0.2.0/33' }, 'cidr', 'IP address or a CIDR'],
      ['POST', '/aliases', { name: 'web' }, 'cidr', 'missing'],
      ['PUT', '/aliases/lab', { comment: 'no cidr' }, 'cidr', 'missing'],
      ['PUT', '/aliases/lab', { cidr: '203.0.113.0/24', rename: 'bad name' }, 'rename', 'alias name'],
      ['PUT', '/options', { enable: 'yes' }, 'enable', 'boolean'],
      ['PUT', '/options', { policy_in: 'ALLOW' }, 'policy_in', ''],
      ['PUT', '/options', { policy_out: 'drop' }, 'policy_out', ''],
      ['PUT', '/options', { delete: 'log_level_in' }, 'delete', ''],
      ['PUT', '/options', { delete: 'enable', enable: 1 }, 'delete', "cannot both set and delete 'enable'"],
      ['PUT', '/options', { nftables: 1 }, 'nftables', 'unknown parameter'],
    ];
    for (const [method, to, form, param, message] of cases) {
      const res = await call(t, method, path('fw-bad', to), { form });
      expect({ case: [method, to, form], status: res.status }).toEqual({ case: [method, to, form], status: 400 });
      expectError(res, 400, message, param);
    }
    expect(asked.length).toBe(before);
  });
});
