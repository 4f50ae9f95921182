import { BUILT_IN_ROLES, type AccessConfig, type AclEntry, type Subject } from '@corral/acl';
import { permissionMap, privilegeFlags } from './permission-map.js';

const config = (acl: AclEntry[], memberPools: ReadonlyMap<string, string[]> = new Map()): AccessConfig => ({
  acl,
  roles: BUILT_IN_ROLES,
  memberPools,
});
const alice: Subject = { kind: 'user', userid: 'alice@pve', groups: [] };
const entry = (path: string, roleid: string, propagate: boolean): AclEntry => ({
  path,
  type: 'user',
  ugid: 'alice@pve',
  roleid,
  propagate,
});

describe('permissionMap', () => {
  it('reports the summary paths and the ACL paths where the subject holds something, with 1 for propagating', () => {
    const map = permissionMap(config([entry('/storage', 'PVEDatastoreUser', true), entry('/vms/100', 'PVETemplateUser', false)]), alice);
    expect(map).toEqual({
      '/storage': { 'Datastore.AllocateSpace': 1, 'Datastore.Audit': 1 },
      '/vms/100': { 'VM.Audit': 0, 'VM.Clone': 0 },
    });
  });

  it('leaves out every path for a subject without privileges', () => {
    expect(permissionMap(config([entry('/vms/100', 'PVEAuditor', true)]), { kind: 'user', userid: 'bob@pve', groups: [] })).toEqual({});
  });

  it('reports each summary path under an entry on / that propagates', () => {
    const map = permissionMap(config([entry('/', 'PVEAuditor', true)]), alice);
    expect(Object.keys(map)).toEqual(['/', '/access', '/access/groups', '/nodes', '/pool', '/sdn', '/storage', '/vms']);
    expect(map['/vms']).toEqual(Object.fromEntries([...(BUILT_IN_ROLES.get('PVEAuditor')?.privileges ?? [])].sort().map((p) => [p, 1])));
  });

  it('reports the paths of pool members, which hold the roles granted on their pool', () => {
    const map = permissionMap(config([entry('/pool/dev', 'PVEPoolUser', true)], new Map([['/vms/100', ['dev']]])), alice);
    expect(map).toEqual({ '/pool/dev': { 'Pool.Audit': 1 }, '/vms/100': { 'Pool.Audit': 0 } });
  });

  it('reports an entry on / that does not propagate only on /', () => {
    expect(Object.keys(permissionMap(config([entry('/', 'PVEAuditor', false)]), alice))).toEqual(['/']);
  });
});

describe('privilegeFlags', () => {
  it('sorts the privileges and maps propagation to 1 or 0', () => {
    expect(
      Object.entries(
        privilegeFlags(
          new Map([
            ['VM.Clone', false],
            ['VM.Audit', true],
          ]),
        ),
      ),
    ).toEqual([
      ['VM.Audit', 1],
      ['VM.Clone', 0],
    ]);
  });
});
