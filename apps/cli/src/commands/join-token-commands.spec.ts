import { parseCommandLine } from '../command-line/parse-command-line.js';
import { UsageError } from '../command-line/usage-error.js';
import { JOIN_TOKEN_COMMANDS } from './join-token-commands.js';

const callOf = (...argv: string[]) => {
  const invocation = parseCommandLine(argv, JOIN_TOKEN_COMMANDS);
  if (invocation.kind !== 'call') throw new Error('not a call');
  return invocation.call;
};

describe('corral cluster join-token', () => {
  it('creates a token with POST /cluster/join-tokens, --replace as replace=1', () => {
    expect(callOf('cluster', 'join-token', 'create', '--ttl', '600', '--node', 'pve2', '--replace', '--comment', 'rack 4')).toEqual({
      method: 'POST',
      path: '/cluster/join-tokens',
      params: { ttl: '600', node: 'pve2', replace: '1', comment: 'rack 4' },
    });
  });

  it("leaves out what is not given, so the API's defaults apply (ttl 900, any node, no replace)", () => {
    const { params } = callOf('cluster', 'join-token', 'create');
    expect(Object.entries(params).filter(([, value]) => value !== undefined)).toEqual([]);
  });

  it('says once the token is printed that it is shown only this once, and how a host uses it', () => {
    expect(JOIN_TOKEN_COMMANDS[0]?.notice).toMatch(
      /shown only this once.*corral agent join <url> --token <token> --fingerprint <fingerprint>/,
    );
  });

  it('lists and removes', () => {
    expect(callOf('cluster', 'join-token', 'list')).toEqual({ method: 'GET', path: '/cluster/join-tokens', params: {} });
    expect(callOf('cluster', 'join-token', 'remove', 'jt/1')).toEqual({
      method: 'DELETE',
      path: '/cluster/join-tokens/jt%2F1',
      params: {},
    });
  });

  it.each([
    [['create', '--replace'], 'cluster join-token create: --replace needs --node: the node the host takes over'],
    [['create', '--node', 'pve2', '--replace=1'], 'cluster join-token create: --replace takes no value'],
    [['create', '--node', 'pve2', '--replace', '1'], "cluster join-token create: unexpected argument '1'"],
    [['create', '--ttl', '15m'], "cluster join-token create: --ttl must be a whole number of seconds, not '15m'"],
    [['create', '--ttl', '-5'], "cluster join-token create: --ttl needs a value (one starting with '-' as --ttl=-value)"],
    [['remove'], 'cluster join-token remove: missing <id>'],
    [['list', '--all'], "cluster join-token list: unknown option '--all'"],
  ])('refuses %j', (args, message) => {
    expect(() => callOf('cluster', 'join-token', ...args)).toThrow(new UsageError(message));
  });
});
