import { parseCommandLine } from '../command-line/parse-command-line.js';
import { UsageError } from '../command-line/usage-error.js';
import { ACL_COMMANDS } from './acl-commands.js';

const callOf = (...argv: string[]) => {
  const invocation = parseCommandLine(argv, ACL_COMMANDS);
  if (invocation.kind !== 'call') throw new Error('not a call');
  return invocation.call;
};

describe('corral acl', () => {
  it("sets an entry with PUT /access/acl, the subject in PVE's users, groups or tokens parameter", () => {
    expect(callOf('acl', 'set', '/', '--role', 'PVEAuditor', '--token', 'alice@pve!ci')).toEqual({
      method: 'PUT',
      path: '/access/acl',
      params: { path: '/', roles: 'PVEAuditor', tokens: 'alice@pve!ci', propagate: undefined, delete: undefined },
    });
    expect(callOf('acl', 'set', '/vms/100', '--role', 'PVEVMUser', '--user', 'alice@pve', '--propagate', '0').params).toEqual({
      path: '/vms/100',
      roles: 'PVEVMUser',
      users: 'alice@pve',
      propagate: '0',
    });
    expect(callOf('acl', 'set', '/storage/local', '--group', 'ops', '--role', 'PVEDatastoreUser').params).toEqual({
      path: '/storage/local',
      roles: 'PVEDatastoreUser',
      groups: 'ops',
    });
  });

  it('removes an entry with the same call and delete=1', () => {
    expect(callOf('acl', 'remove', '/', '--role', 'PVEAuditor', '--group', 'ops')).toEqual({
      method: 'PUT',
      path: '/access/acl',
      params: { path: '/', roles: 'PVEAuditor', groups: 'ops', delete: '1' },
    });
  });

  it('lists the entries', () => {
    expect(callOf('acl', 'list')).toEqual({ method: 'GET', path: '/access/acl', params: {} });
  });

  it.each([
    [['acl', 'set', '--role', 'PVEAuditor', '--user', 'alice@pve'], 'acl set: missing <path>'],
    [['acl', 'set', '/', '--user', 'alice@pve'], 'acl set: missing --role'],
    [['acl', 'set', '/', '--role', 'PVEAuditor'], 'acl set: give exactly one of --user, --group or --token'],
    [
      ['acl', 'remove', '/', '--role', 'PVEAuditor', '--user', 'alice@pve', '--group', 'ops'],
      'acl remove: give exactly one of --user, --group or --token',
    ],
    [
      ['acl', 'set', '/', '--role', 'PVEAuditor', '--user', 'alice@pve', '--propagate', '2'],
      "acl set: --propagate must be 0 or 1, not '2'",
    ],
    [['acl', 'set', '/', '--role', 'A', '--role', 'B', '--user', 'alice@pve'], 'acl set: --role is given more than once'],
    [['acl', 'list', '/'], "acl list: unexpected argument '/'"],
  ])('refuses %j', (argv, message) => {
    expect(() => callOf(...argv)).toThrow(new UsageError(message));
  });
});
