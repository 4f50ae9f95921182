import { BUILT_IN_ROLES, type AclEntry } from '@corral/acl';
import type { AccessSnapshot } from '../state/access-snapshot.js';
import { denial, permissionDenied } from './authorizer.js';
import type { Principal } from '../../http/principal.js';

function snapshot(acl: AclEntry[], groupsOf: Record<string, string[]> = {}): AccessSnapshot {
  const users = new Map(
    Object.entries(groupsOf).map(([userid, groups]) => [
      userid,
      { userid, realm: 'pve', enable: true, expire: 0, passwordHash: null, groups },
    ]),
  );
  return {
    acl,
    roles: BUILT_IN_ROLES,
    memberPools: new Map(),
    pools: [],
    users,
    tokens: new Map(),
    tokensBySecretHash: new Map(),
    groups: new Map(),
    realms: new Map(),
  };
}
const user = (userid: string, groups: string[] = []): Principal => ({
  userid,
  tokenid: null,
  method: 'basic',
  subject: { kind: 'user', userid, groups },
});
const entry = (path: string, ugid: string, roleid: string, type: AclEntry['type'] = 'user'): AclEntry => ({
  path,
  type,
  ugid,
  roleid,
  propagate: true,
});

describe('denial', () => {
  it('lets root@pam pass every check, but not a token of root@pam', () => {
    const access = snapshot([]);
    expect(
      denial({ kind: 'privileges', path: '/', privileges: ['Sys.Modify'] }, { access, principal: user('root@pam'), params: {} }),
    ).toBeNull();
    const token: Principal = {
      userid: 'root@pam',
      tokenid: 'root@pam!t',
      method: 'token',
      subject: { kind: 'token', userid: 'root@pam', groups: [], tokenid: 'root@pam!t', privsep: true },
    };
    expect(denial({ kind: 'privileges', path: '/', privileges: ['Sys.Modify'] }, { access, principal: token, params: {} })).toEqual({
      path: '/',
      privileges: ['Sys.Modify'],
    });
  });

  it('fills the path from the parameters, and {realm} from a userid', () => {
    const access = snapshot([entry('/vms/100', 'a@pve', 'PVEVMUser'), entry('/access/realm/pve', 'a@pve', 'PVEUserAdmin')]);
    const check = { kind: 'privileges', path: '/vms/{vmid}', privileges: ['VM.PowerMgmt'] } as const;
    expect(denial(check, { access, principal: user('a@pve'), params: { vmid: 100 } })).toBeNull();
    expect(denial(check, { access, principal: user('a@pve'), params: { vmid: 101 } })).toEqual({
      path: '/vms/101',
      privileges: ['VM.PowerMgmt'],
    });
    const realm = { kind: 'privileges', path: '/access/realm/{realm}', privileges: ['Realm.AllocateUser'] } as const;
    expect(denial(realm, { access, principal: user('a@pve'), params: { userid: 'x@pve' } })).toBeNull();
    expect(denial(realm, { access, principal: user('a@pve'), params: { userid: 'x@pam' } })).not.toBeNull();
  });

  it("grants nothing by a path whose parameter was not given (PVE's VM.Allocate on /vms/{vmid} or on /pool/{pool})", () => {
    const access = snapshot([entry('/pool/dev', 'a@pve', 'PVEVMAdmin')]);
    const check = {
      kind: 'anyOf',
      checks: [
        { kind: 'privileges', path: '/vms/{vmid}', privileges: ['VM.Allocate'] },
        { kind: 'privileges', path: '/pool/{pool}', privileges: ['VM.Allocate'] },
      ],
    } as const;
    expect(denial(check, { access, principal: user('a@pve'), params: { vmid: 100, pool: 'dev' } })).toBeNull();
    expect(denial(check, { access, principal: user('a@pve'), params: { vmid: 100 } })).toEqual({});
    expect(denial(check.checks[1], { access, principal: user('a@pve'), params: {} })).toEqual({
      path: '/pool/{pool}',
      privileges: ['VM.Allocate'],
    });
  });

  it('checks self, and any of a user’s groups or each of the given groups', () => {
    const access = snapshot([entry('/access/groups/ops', 'admin@pve', 'PVEUserAdmin')], { 'b@pve': ['ops'], 'c@pve': ['dev'] });
    const admin = user('admin@pve');
    expect(denial({ kind: 'self', param: 'userid' }, { access, principal: user('b@pve'), params: { userid: 'b@pve' } })).toBeNull();
    expect(denial({ kind: 'self', param: 'userid' }, { access, principal: user('b@pve'), params: { userid: 'c@pve' } })).toEqual({});
    const token: Principal = {
      userid: 'b@pve',
      tokenid: 'b@pve!t',
      method: 'token',
      subject: { kind: 'token', userid: 'b@pve', groups: [], tokenid: 'b@pve!t', privsep: true },
    };
    expect(denial({ kind: 'self', param: 'userid' }, { access, principal: token, params: { userid: 'b@pve' } })).toEqual({});
    const byUser = { kind: 'groups', param: 'userid', privileges: ['User.Modify'] } as const;
    expect(denial(byUser, { access, principal: admin, params: { userid: 'b@pve' } })).toBeNull();
    expect(denial(byUser, { access, principal: admin, params: { userid: 'c@pve' } })).not.toBeNull();
    const byList = { kind: 'groups', param: 'groups', privileges: ['User.Modify'] } as const;
    expect(denial(byList, { access, principal: admin, params: { groups: ['ops'] } })).toBeNull();
    expect(denial(byList, { access, principal: admin, params: { groups: ['ops', 'dev'] } })).not.toBeNull();
    expect(denial(byList, { access, principal: admin, params: {} })).not.toBeNull();
  });

  it('allows modifying permissions with Permissions.Modify or the allocate privilege of the path', () => {
    const access = snapshot([entry('/vms', 'v@pve', 'PVEVMAdmin'), entry('/storage', 's@pve', 'PVEDatastoreUser')]);
    const check = { kind: 'permModify', path: '{path}' } as const;
    expect(denial(check, { access, principal: user('v@pve'), params: { path: '/vms/100' } })).toBeNull();
    expect(denial(check, { access, principal: user('s@pve'), params: { path: '/storage/local' } })).toEqual({
      path: '/storage/local',
      privileges: ['Permissions.Modify', 'Datastore.Allocate'],
    });
  });

  it('combines checks', () => {
    const access = snapshot([entry('/', 'a@pve', 'PVEAuditor')]);
    const audit = { kind: 'privileges', path: '/', privileges: ['Sys.Audit'] } as const;
    const modify = { kind: 'privileges', path: '/', privileges: ['Sys.Modify'] } as const;
    const context = { access, principal: user('a@pve'), params: {} };
    expect(denial({ kind: 'anyOf', checks: [modify, audit] }, context)).toBeNull();
    expect(denial({ kind: 'allOf', checks: [audit, modify] }, context)).toEqual({ path: '/', privileges: ['Sys.Modify'] });
  });
});

describe('permissionDenied', () => {
  it("says Corral's message, with PVE's detail in the reason phrase", () => {
    const error = permissionDenied({ path: '/vms/100', privileges: ['VM.PowerMgmt'] });
    expect([error.code, error.message, error.details.reason]).toEqual([
      'PERMISSION_DENIED',
      'permission denied',
      'permission denied - Permission check failed (/vms/100, VM.PowerMgmt)',
    ]);
  });
});
