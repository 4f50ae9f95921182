import { UsageError } from '../command-line/usage-error.js';
import { GET_COMMAND } from './get-command.js';

describe('corral get (as pvesh get)', () => {
  it('reads any path, its options as query parameters, a repeated key as a list', () => {
    expect(GET_COMMAND.toCall(['/access/permissions', '--userid', 'alice@pve!ci', '--path=/'])).toEqual({
      method: 'GET',
      path: '/access/permissions',
      params: { userid: 'alice@pve!ci', path: '/' },
    });
    expect(GET_COMMAND.toCall(['--type', 'vm', '/cluster/resources', '--ids', '1', '--ids', '2']).params).toEqual({
      type: 'vm',
      ids: ['1', '2'],
    });
    expect(GET_COMMAND.toCall(['/version'])).toEqual({ method: 'GET', path: '/version', params: {} });
  });

  it.each([
    [[], 'missing <api path>'],
    [['--full', '1'], 'missing <api path>'],
    [['/access/users', '/version'], "unexpected argument '/version'"],
    [['/access/users', '--full'], '--full needs a value'],
    [['access/users'], "the API path is like /access/users, with parameters as --key value: not 'access/users'"],
    [['/access/users?full=1'], "the API path is like /access/users, with parameters as --key value: not '/access/users?full=1'"],
  ])('refuses %j', (args, message) => {
    expect(() => GET_COMMAND.toCall(args)).toThrow(new UsageError(message));
  });
});
