import { COMMANDS, type CommandHandlers } from './catalog.js';
import { parseCommandRequest, parseCommandResult, runCommand } from './command-requests.js';

describe('parseCommandRequest', () => {
  it('answers an unknown command with unknown-command, naming it', () => {
    expect(parseCommandRequest({ command: 'node.reboot', params: {} })).toStrictEqual({
      ok: false,
      code: 'unknown-command',
      message: "unknown command 'node.reboot'",
    });
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])('does not take the object property %s for a command', (command) => {
    expect(parseCommandRequest({ command, params: {} })).toMatchObject({ ok: false, code: 'unknown-command' });
  });

  it('answers bad parameters with invalid-params, naming the command and the field', () => {
    expect(parseCommandRequest({ command: 'node.dns.set', params: { search: [], servers: ['192.0.2.300'] } })).toStrictEqual({
      ok: false,
      code: 'invalid-params',
      message: 'node.dns.set: params.servers[0]: must be an IPv4 or IPv6 address',
    });
  });

  it('names a missing parameter', () => {
    expect(parseCommandRequest({ command: 'node.apt.changelog', params: {} })).toMatchObject({
      message: 'node.apt.changelog: params.name: Invalid input: expected string, received undefined',
    });
  });

  it('returns the command with its checked parameters', () => {
    expect(parseCommandRequest({ command: 'node.network.delete', params: { iface: 'vmbr1' } })).toStrictEqual({
      ok: true,
      request: { command: 'node.network.delete', params: { iface: 'vmbr1' } },
    });
  });
});

describe('parseCommandResult', () => {
  it('accepts a result of the command asked for', () => {
    expect(parseCommandResult('node.firewall.apply', { checked: false, applied: true })).toStrictEqual({
      ok: true,
      result: { checked: false, applied: true },
    });
  });

  it('refuses a result of another shape, naming the field', () => {
    expect(parseCommandResult('node.firewall.apply', { checked: 'yes', applied: true })).toStrictEqual({
      ok: false,
      message: 'node.firewall.apply: result.checked: Invalid input: expected boolean, received string',
    });
  });

  it('refuses something where a command returns nothing', () => {
    expect(parseCommandResult('node.dns.set', {})).toMatchObject({
      ok: false,
      message: 'node.dns.set: result: Invalid input: expected null, received object',
    });
  });
});

describe('runCommand', () => {
  const notCalled = () => Promise.reject(new Error('the wrong handler ran'));
  // Every handler of the catalog refuses to run, but the one the test asks for.
  const handlers: CommandHandlers<{ node: string }> = {
    ...(Object.fromEntries(Object.keys(COMMANDS).map((name) => [name, notCalled])) as unknown as CommandHandlers<{ node: string }>),
    'node.apt.changelog': async ({ name, version }, { node }) => `${name} ${version ?? 'candidate'} on ${node}`,
  };

  it("runs the request's own handler with its parameters and the context", async () => {
    const parsed = parseCommandRequest({ command: 'node.apt.changelog', params: { name: 'openssl' } });
    if (!parsed.ok) throw new Error(parsed.message);
    await expect(runCommand(handlers, parsed.request, { node: 'pve1' })).resolves.toBe('openssl candidate on pve1');
  });

  it('types the handler map so that a missing handler or a wrong result does not compile', () => {
    // @ts-expect-error: no handler for node.firewall.apply
    const missing: CommandHandlers = { ...handlers, 'node.firewall.apply': undefined };
    // @ts-expect-error: node.dns.set returns null, not a string
    const wrongResult: CommandHandlers = { ...handlers, 'node.dns.set': async () => 'done' };
    const dnsGet = async ({ servers }: { servers: string[] }) => ({ search: [], servers });
    // @ts-expect-error: node.dns.get takes no `servers`
    const wrongParams: CommandHandlers = { ...handlers, 'node.dns.get': dnsGet };
    expect([missing, wrongResult, wrongParams]).toHaveLength(3);
  });
});
