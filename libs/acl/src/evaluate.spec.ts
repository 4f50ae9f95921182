import { allows, effectivePrivileges, fillAclPath, type AccessConfig, type AclEntry, type Subject } from './evaluate.js';
import { BUILT_IN_ROLES } from './roles.js';

const entry = (path: string, type: AclEntry['type'], ugid: string, roleid: string, propagate = true): AclEntry => ({
  path,
  type,
  ugid,
  roleid,
  propagate,
});
const config = (acl: AclEntry[], pools: Record<string, string[]> = {}): AccessConfig => ({
  acl,
  roles: BUILT_IN_ROLES,
  memberPools: new Map(Object.entries(pools)),
});
const alice: Subject = { kind: 'user', userid: 'alice@pve', groups: ['ops', 'dev'] };
const token = (privsep: boolean, userid = 'alice@pve'): Subject => ({
  kind: 'token',
  userid,
  groups: userid === 'alice@pve' ? ['ops', 'dev'] : [],
  tokenid: `${userid}!ci`,
  privsep,
});
const privs = (c: AccessConfig, s: Subject, path: string) => [...effectivePrivileges(c, s, path).keys()].sort();
const rolePrivs = (roleid: string) => [...(BUILT_IN_ROLES.get(roleid)?.privileges ?? [])].sort();

describe('effectivePrivileges', () => {
  it('gives root@pam every privilege everywhere, whatever the ACL says', () => {
    const c = config([entry('/', 'user', 'root@pam', 'NoAccess')]);
    expect(privs(c, { kind: 'user', userid: 'root@pam', groups: [] }, '/vms/100')).toEqual(rolePrivs('Administrator'));
  });

  it('inherits only propagating entries', () => {
    expect(privs(config([entry('/', 'user', 'alice@pve', 'PVEAuditor')]), alice, '/vms/100')).toEqual(rolePrivs('PVEAuditor'));
    const flat = config([entry('/', 'user', 'alice@pve', 'PVEAuditor', false)]);
    expect(privs(flat, alice, '/')).toEqual(rolePrivs('PVEAuditor'));
    expect(privs(flat, alice, '/vms/100')).toEqual([]);
  });

  it('lets a deeper entry replace what was inherited, not add to it', () => {
    const c = config([entry('/', 'user', 'alice@pve', 'PVEAuditor'), entry('/vms/100', 'user', 'alice@pve', 'PVEVMUser')]);
    expect(privs(c, alice, '/vms/100')).toEqual(rolePrivs('PVEVMUser'));
    expect(privs(c, alice, '/vms/100')).not.toContain('Sys.Audit');
    expect(privs(c, alice, '/vms/101')).toEqual(rolePrivs('PVEAuditor'));
  });

  it('lets the user’s own entries override its groups’ at the same level', () => {
    const c = config([entry('/vms', 'group', 'ops', 'PVEVMAdmin'), entry('/vms', 'user', 'alice@pve', 'PVEAuditor')]);
    expect(privs(c, alice, '/vms/100')).toEqual(rolePrivs('PVEAuditor'));
  });

  it('unites the roles of all the user’s groups', () => {
    const c = config([
      entry('/', 'group', 'ops', 'PVEDatastoreUser'),
      entry('/', 'group', 'dev', 'PVETemplateUser'),
      entry('/', 'group', 'other', 'Administrator'),
    ]);
    expect(privs(c, alice, '/storage/local')).toEqual([...rolePrivs('PVEDatastoreUser'), ...rolePrivs('PVETemplateUser')].sort());
  });

  it('cancels everything with NoAccess, on that path only', () => {
    const c = config([entry('/', 'group', 'ops', 'Administrator'), entry('/vms/100', 'user', 'alice@pve', 'NoAccess')]);
    expect(privs(c, alice, '/vms/100')).toEqual([]);
    expect(privs(c, alice, '/vms/101')).toEqual(rolePrivs('Administrator'));
  });

  it('reports whether each privilege propagates', () => {
    const c = config([entry('/vms', 'user', 'alice@pve', 'PVEVMUser', false), entry('/vms', 'group', 'ops', 'PVEAuditor')]);
    const held = effectivePrivileges(c, alice, '/vms');
    expect(held.get('VM.PowerMgmt')).toBe(false);
  });

  describe('API tokens', () => {
    const userIsVmUser = entry('/vms', 'user', 'alice@pve', 'PVEVMUser');

    it('gives a privilege-separated token without ACL entries nothing', () => {
      expect(privs(config([userIsVmUser]), token(true), '/vms/100')).toEqual([]);
    });

    it('gives a privilege-separated token the intersection of its entries and its user’s privileges', () => {
      const c = config([userIsVmUser, entry('/', 'token', 'alice@pve!ci', 'PVEVMAdmin')]);
      expect(privs(c, token(true), '/vms/100')).toEqual(rolePrivs('PVEVMUser'));
      expect(privs(c, token(true), '/nodes/pve1')).toEqual([]);
    });

    it('propagates a token privilege only where both sides propagate', () => {
      const c = config([
        entry('/vms/100', 'user', 'alice@pve', 'PVEVMUser', true),
        entry('/vms/100', 'token', 'alice@pve!ci', 'PVEVMUser', false),
      ]);
      expect(effectivePrivileges(c, token(true), '/vms/100').get('VM.PowerMgmt')).toBe(false);
    });

    it('gives a token without separation exactly its user’s privileges, ignoring token entries', () => {
      const c = config([userIsVmUser, entry('/', 'token', 'alice@pve!ci', 'Administrator')]);
      expect(privs(c, token(false), '/vms/100')).toEqual(rolePrivs('PVEVMUser'));
    });

    it('limits a separated root@pam token to its entries, and gives an unseparated one everything', () => {
      const c = config([entry('/vms', 'token', 'root@pam!ci', 'PVEAuditor')]);
      expect(privs(c, token(true, 'root@pam'), '/vms/100')).toEqual(rolePrivs('PVEAuditor'));
      expect(privs(c, token(false, 'root@pam'), '/nodes/x')).toEqual(rolePrivs('Administrator'));
    });
  });

  describe('pools', () => {
    const pools = { '/vms/100': ['dev'], '/storage/local': ['dev'] };

    it('grants the pool’s roles on its members only', () => {
      const c = config([entry('/pool/dev', 'group', 'dev', 'PVEVMUser')], pools);
      expect(privs(c, alice, '/vms/100')).toEqual(rolePrivs('PVEVMUser'));
      expect(privs(c, alice, '/vms/101')).toEqual([]);
    });

    it('adds the pool’s roles to the member’s own', () => {
      const c = config(
        [entry('/pool/dev', 'group', 'dev', 'PVEVMUser'), entry('/storage', 'user', 'alice@pve', 'PVEDatastoreUser')],
        pools,
      );
      expect(privs(c, alice, '/storage/local')).toEqual([...new Set([...rolePrivs('PVEVMUser'), ...rolePrivs('PVEDatastoreUser')])].sort());
    });

    it('lets NoAccess on the member win over the pool, and NoAccess on the pool win over the member', () => {
      const memberDenied = config(
        [entry('/pool/dev', 'group', 'dev', 'PVEVMAdmin'), entry('/vms/100', 'user', 'alice@pve', 'NoAccess')],
        pools,
      );
      expect(privs(memberDenied, alice, '/vms/100')).toEqual([]);
      const poolDenied = config(
        [entry('/pool/dev', 'user', 'alice@pve', 'NoAccess'), entry('/vms', 'user', 'alice@pve', 'PVEVMAdmin')],
        pools,
      );
      expect(privs(poolDenied, alice, '/vms/100')).toEqual([]);
      expect(privs(poolDenied, alice, '/vms/101')).toEqual(rolePrivs('PVEVMAdmin'));
    });

    it('unites the roles of every pool a storage is in; NoAccess on any of them wins', () => {
      const shared = { '/storage/nfs': ['dev', 'ops'] };
      const c = config(
        [entry('/pool/dev', 'user', 'alice@pve', 'PVEDatastoreUser'), entry('/pool/ops', 'user', 'alice@pve', 'PVEPoolUser')],
        shared,
      );
      expect(privs(c, alice, '/storage/nfs')).toEqual([...rolePrivs('PVEDatastoreUser'), ...rolePrivs('PVEPoolUser')].sort());
      const denied = config(
        [entry('/pool/dev', 'user', 'alice@pve', 'PVEDatastoreAdmin'), entry('/pool/ops', 'user', 'alice@pve', 'NoAccess')],
        shared,
      );
      expect(privs(denied, alice, '/storage/nfs')).toEqual([]);
    });

    it('applies a pool entry that does not propagate, and never lets the pool’s roles propagate below the member', () => {
      const c = config([entry('/pool/dev', 'user', 'alice@pve', 'PVEVMUser', false)], pools);
      expect(effectivePrivileges(c, alice, '/vms/100').get('VM.PowerMgmt')).toBe(false);
      const own = config(
        [entry('/pool/dev', 'user', 'alice@pve', 'PVEVMUser'), entry('/vms/100', 'user', 'alice@pve', 'PVEVMUser')],
        pools,
      );
      expect(effectivePrivileges(own, alice, '/vms/100').get('VM.PowerMgmt')).toBe(true);
    });

    it('follows membership: the same entries grant nothing once the guest has left the pool', () => {
      const acl = [entry('/pool/dev', 'user', 'alice@pve', 'PVEVMUser')];
      expect(allows(config(acl, pools), alice, '/vms/100', ['VM.PowerMgmt'])).toBe(true);
      expect(allows(config(acl, {}), alice, '/vms/100', ['VM.PowerMgmt'])).toBe(false);
    });

    it('applies the pool’s roles to a privilege-separated token only where its user also holds them', () => {
      const c = config(
        [entry('/pool/dev', 'token', 'alice@pve!ci', 'PVEVMAdmin'), entry('/pool/dev', 'user', 'alice@pve', 'PVEVMUser')],
        pools,
      );
      expect(privs(c, token(true), '/vms/100')).toEqual(rolePrivs('PVEVMUser'));
    });
  });
});

describe('allows', () => {
  const c = config([entry('/vms', 'user', 'alice@pve', 'PVEVMUser')]);

  it('needs every privilege, or one of them with any', () => {
    expect(allows(c, alice, '/vms/100', ['VM.PowerMgmt', 'VM.Console'])).toBe(true);
    expect(allows(c, alice, '/vms/100', ['VM.PowerMgmt', 'VM.Allocate'])).toBe(false);
    expect(allows(c, alice, '/vms/100', ['VM.PowerMgmt', 'VM.Allocate'], true)).toBe(true);
  });
});

describe('fillAclPath', () => {
  it('fills placeholders from parameters', () => {
    expect(fillAclPath('/vms/{vmid}', { vmid: 100 })).toBe('/vms/100');
  });

  it('refuses a missing parameter', () => {
    expect(() => fillAclPath('/storage/{storage}', {})).toThrow("ACL path /storage/{storage} needs parameter 'storage'");
  });
});
