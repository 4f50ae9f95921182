import { COMMANDS } from '../commands/commands.js';
import { parseCommandLine } from './parse-command-line.js';
import { UsageError } from './usage-error.js';

const parse = (...argv: string[]) => parseCommandLine(argv, COMMANDS);

/** The message and hint of the UsageError the command line raises. */
function usageError(...argv: string[]): { message: string; hint: string } {
  try {
    parse(...argv);
  } catch (error) {
    if (error instanceof UsageError) return { message: error.message, hint: error.hint };
    throw error;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
}

describe('the command line', () => {
  it('finds the command by its words and hands it the rest', () => {
    expect(parse('token', 'list', 'root@pam')).toEqual({
      kind: 'call',
      command: expect.objectContaining({ name: 'token list' }),
      call: { method: 'GET', path: '/access/users/root%40pam/token', params: {} },
    });
  });

  it('answers --help and -h with every command and every environment variable', () => {
    for (const flag of ['--help', '-h']) {
      const help = parse(flag);
      if (help.kind !== 'help') throw new Error('not help');
      for (const name of [
        'token create <userid> <tokenid>',
        'token list <userid>',
        'token remove',
        'token regenerate',
        'acl set <path>',
        'acl remove',
        'acl list',
        'cluster join-token create',
        'cluster join-token list',
        'cluster join-token remove <id>',
        'agent join <url>',
        'agent install',
        'events listen',
        'get <api path>',
      ]) {
        expect(help.text).toContain(name);
      }
      for (const variable of [
        'CORRAL_URL',
        'CORRAL_TOKEN',
        'CORRAL_TICKET',
        'CORRAL_CSRF_TOKEN',
        'CORRAL_USER',
        'CORRAL_PASSWORD',
        'CORRAL_FINGERPRINT',
        'NODE_EXTRA_CA_CERTS',
      ]) {
        expect(help.text).toContain(variable);
      }
    }
  });

  it("answers a command's --help with its options, wherever the flag stands", () => {
    const help = parse('token', 'create', 'root@pam', '--help');
    expect(help).toEqual({ kind: 'help', text: expect.stringContaining('Usage: corral token create <userid> <tokenid> [options]') });
    for (const option of ['--expire YYYY-MM-DD', '--privsep 0|1', '--comment TEXT', '--help'])
      expect(help.kind === 'help' && help.text).toContain(option);
    expect(parse('acl', 'set', '-h')).toEqual({
      kind: 'help',
      text: expect.stringMatching(/--role ROLE[\s\S]*--user USERID[\s\S]*--group GROUP[\s\S]*--token TOKENID[\s\S]*--propagate 0\|1/),
    });
  });

  it("lists a group's commands for 'corral token --help'", () => {
    const help = parse('token', '--help');
    expect(help.kind === 'help' && help.text).toContain('token regenerate <userid> <tokenid>');
    expect(help.kind === 'help' && help.text).not.toContain('acl set');
  });

  it('refuses a missing or unknown command', () => {
    expect(usageError()).toEqual({ message: 'missing command', hint: "Run 'corral --help' for the commands." });
    expect(usageError('frob')).toEqual({ message: "unknown command 'frob'", hint: "Run 'corral --help' for the commands." });
    expect(usageError('token')).toEqual({
      message: 'token: missing subcommand; one of create, list, remove, regenerate',
      hint: "Run 'corral token --help' for its commands.",
    });
    expect(usageError('acl', 'grant', '/')).toEqual({
      message: "acl: unknown subcommand 'grant'; one of set, remove, list",
      hint: "Run 'corral acl --help' for its commands.",
    });
  });

  it('finds the group of a three-word command by its leading words', () => {
    expect(usageError('cluster', 'join-token')).toEqual({
      message: 'cluster join-token: missing subcommand; one of create, list, remove',
      hint: "Run 'corral cluster join-token --help' for its commands.",
    });
    expect(usageError('cluster')).toEqual({
      message: 'cluster: missing subcommand; one of join-token create, join-token list, join-token remove',
      hint: "Run 'corral cluster --help' for its commands.",
    });
    expect(usageError('cluster', 'join-token', 'frob').message).toBe(
      "cluster join-token: unknown subcommand 'frob'; one of create, list, remove",
    );
    const help = parse('cluster', 'join-token', '--help');
    expect(help.kind === 'help' && help.text).toContain('cluster join-token remove <id>');
    expect(help.kind === 'help' && help.text).not.toContain('agent join');
  });

  it('shows a flag without a value in the help', () => {
    const help = parse('agent', 'join', '--help');
    expect(help.kind === 'help' && help.text).toMatch(/\n {2}--no-start {2,}join and write the config, but do not run the agent\n/);
    expect(help.kind === 'help' && help.text).toContain('Usage: corral agent join <url> [options]');
  });

  it('names the command and points at its help on a usage error', () => {
    expect(usageError('token', 'list')).toEqual({
      message: 'token list: missing <userid>',
      hint: "Run 'corral token list --help' for its usage.",
    });
  });

  it.each([
    [['token', 'create', 'root@pam'], 'token create: missing <tokenid>'],
    [['token', 'remove', 'root@pam', 'ci', 'extra'], "token remove: unexpected argument 'extra'"],
    [['token', 'create', 'root@pam', 'ci', '--expires', '2030-01-01'], "token create: unknown option '--expires'"],
    [['token', 'create', 'root@pam', 'ci', '-x'], "token create: unknown option '-x'"],
    [['token', 'list', 'root@pam', '--privsep', '1'], "token list: unknown option '--privsep'"],
    [
      ['token', 'create', 'root@pam', 'ci', '--comment'],
      "token create: --comment needs a value (one starting with '-' as --comment=-value)",
    ],
    [
      ['token', 'create', 'root@pam', 'ci', '--comment', '--privsep', '0'],
      "token create: --comment needs a value (one starting with '-' as --comment=-value)",
    ],
    [['token', 'create', 'root@pam', 'ci', '--privsep', '0', '--privsep=1'], 'token create: --privsep is given more than once'],
  ])('reads options strictly: %j', (argv, message) => {
    expect(usageError(...argv).message).toBe(message);
  });
});
