import { parseCommandLine } from '../command-line/parse-command-line.js';
import { UsageError } from '../command-line/usage-error.js';
import { TOKEN_COMMANDS } from './token-commands.js';

const callOf = (...argv: string[]) => {
  const invocation = parseCommandLine(argv, TOKEN_COMMANDS);
  if (invocation.kind !== 'call') throw new Error('not a call');
  return invocation.call;
};

describe('corral token', () => {
  it('creates a token on its PVE path, with --expire as the epoch after the last valid day and 0|1 flags', () => {
    expect(callOf('token', 'create', 'alice@pve', 'ci', '--expire', '2030-01-15', '--privsep', '0', '--comment', 'for CI')).toEqual({
      method: 'POST',
      path: '/access/users/alice%40pve/token/ci',
      params: { expire: String(Date.UTC(2030, 0, 16) / 1000), privsep: '0', comment: 'for CI' },
    });
  });

  it("leaves out what is not given, so the API's defaults apply (privsep 1, the user's expiry)", () => {
    const { params } = callOf('token', 'create', 'alice@pve', 'ci');
    expect(Object.entries(params).filter(([, value]) => value !== undefined)).toEqual([]);
  });

  it('takes --name=value, and a comment starting with a dash only so', () => {
    expect(callOf('token', 'create', 'alice@pve', 'ci', '--privsep=1', '--comment=-ish').params).toEqual({ privsep: '1', comment: '-ish' });
  });

  it('says once a secret is printed that it is shown only this once', () => {
    for (const name of ['token create', 'token regenerate']) {
      expect(TOKEN_COMMANDS.find((command) => command.name === name)?.notice).toMatch(/shown only this once/);
    }
    expect(TOKEN_COMMANDS.find((command) => command.name === 'token list')?.notice).toBeUndefined();
  });

  it('lists, removes and regenerates', () => {
    expect(callOf('token', 'list', 'alice@pve')).toEqual({ method: 'GET', path: '/access/users/alice%40pve/token', params: {} });
    expect(callOf('token', 'remove', 'alice@pve', 'ci')).toEqual({
      method: 'DELETE',
      path: '/access/users/alice%40pve/token/ci',
      params: {},
    });
    expect(callOf('token', 'regenerate', 'alice@pve', 'ci')).toEqual({
      method: 'PUT',
      path: '/access/users/alice%40pve/token/ci',
      params: { regenerate: '1' },
    });
  });

  it.each([
    [['--expire', '2030-02-30'], "token create: --expire: '2030-02-30' is not a date YYYY-MM-DD"],
    [['--expire', '1893456000'], "token create: --expire: '1893456000' is not a date YYYY-MM-DD"],
    [['--privsep', 'yes'], "token create: --privsep must be 0 or 1, not 'yes'"],
    [['--privsep', 'true'], "token create: --privsep must be 0 or 1, not 'true'"],
  ])('refuses %j', (options, message) => {
    expect(() => callOf('token', 'create', 'alice@pve', 'ci', ...options)).toThrow(new UsageError(message));
  });
});
