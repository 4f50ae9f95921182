import { hostname } from 'node:os';
import { parseCommandLine } from '../command-line/parse-command-line.js';
import { UsageError } from '../command-line/usage-error.js';
import { AGENT_COMMANDS } from './agent-commands.js';

const FINGERPRINT = Array.from({ length: 32 }, (_, i) => (i * 7).toString(16).padStart(2, '0').toUpperCase()).join(':');
const JOIN = ['agent', 'join', 'https://cp.example:8006', '--token', 'jt-secret', '--fingerprint', FINGERPRINT];

function usageError(...argv: string[]): string {
  try {
    parseCommandLine(argv, AGENT_COMMANDS);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
}

describe('corral agent join and install, before they do anything', () => {
  it('takes the join arguments as a local task, not an API call', () => {
    expect(
      parseCommandLine([...JOIN, '--node', 'pve7', '--config', 'agent.json', '--host-root', '/srv/host', '--no-start'], AGENT_COMMANDS),
    ).toEqual({
      kind: 'task',
      command: expect.objectContaining({ name: 'agent join' }),
      task: expect.any(Function),
    });
  });

  it("defaults the node name to this host's name up to the first dot", () => {
    const short = hostname().split('.')[0] ?? '';
    // A host named like no node cannot join under its own name: then the command says so.
    if (/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(short)) expect(() => parseCommandLine(JOIN, AGENT_COMMANDS)).not.toThrow();
    else expect(usageError(...JOIN)).toBe(`agent join: this host's name '${short}' is no node name: give one with --node`);
  });

  it.each([
    [['agent', 'join', '--token', 't', '--fingerprint', FINGERPRINT], 'agent join: missing <url>'],
    [
      ['agent', 'join', 'http://cp.example:8006', '--token', 't', '--fingerprint', FINGERPRINT],
      "agent join: <url> must be an https:// URL such as https://127.0.0.1:8006, not 'http://cp.example:8006'",
    ],
    [['agent', 'join', 'https://cp.example:8006', '--fingerprint', FINGERPRINT], 'agent join: missing --token'],
    [['agent', 'join', 'https://cp.example:8006', '--token', 't'], 'agent join: missing --fingerprint'],
    [[...JOIN.slice(0, 5), '--fingerprint', 'AB:CD'], 'agent join: --fingerprint must be a SHA-256 fingerprint: 32 hex bytes, AA:BB:...'],
    [[...JOIN, '--node', 'pve_1'], 'agent join: --node must be a host name label (letters, digits and inner hyphens, at most 63)'],
    [[...JOIN, '--no-start=yes'], 'agent join: --no-start takes no value'],
    [['agent', 'install', 'now'], "agent install: unexpected argument 'now'"],
    [['agent', 'install', '--unit-dir'], "agent install: --unit-dir needs a value (one starting with '-' as --unit-dir=-value)"],
  ])('refuses %j', (argv, message) => {
    expect(usageError(...argv)).toBe(message);
  });

  it('names the agent commands in the group help', () => {
    expect(usageError('agent')).toBe('agent: missing subcommand; one of join, install');
  });
});
