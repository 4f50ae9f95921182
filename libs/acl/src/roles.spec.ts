import { PRIVILEGES } from './privileges.js';
import { BUILT_IN_ROLES, isReservedRoleId } from './roles.js';

const privilegesOf = (roleid: string) => [...(BUILT_IN_ROLES.get(roleid)?.privileges ?? [])].sort();

describe('built-in roles', () => {
  it('knows PVE 9’s 47 privileges', () => {
    expect(PRIVILEGES).toHaveLength(47);
  });

  it('has exactly PVE 9’s built-in roles', () => {
    expect([...BUILT_IN_ROLES.keys()].sort()).toEqual(
      [
        'Administrator',
        'NoAccess',
        'PVEAdmin',
        'PVEAuditor',
        'PVEDatastoreAdmin',
        'PVEDatastoreUser',
        'PVEMappingAdmin',
        'PVEMappingUser',
        'PVEPoolAdmin',
        'PVEPoolUser',
        'PVESDNAdmin',
        'PVESDNUser',
        'PVESysAdmin',
        'PVETemplateUser',
        'PVEUserAdmin',
        'PVEVMAdmin',
        'PVEVMUser',
      ].sort(),
    );
  });

  it.each([
    ['Administrator', 47],
    ['PVEAdmin', 40],
    ['PVEVMAdmin', 23],
    ['NoAccess', 0],
  ])('%s has %i privileges', (roleid, count) => {
    expect(privilegesOf(roleid)).toHaveLength(count);
  });

  it('gives PVEAdmin neither root-only privileges nor Mapping.Modify nor Permissions.Modify', () => {
    for (const privilege of ['Sys.Modify', 'Sys.PowerMgmt', 'Realm.Allocate', 'Mapping.Modify', 'Permissions.Modify']) {
      expect(privilegesOf('PVEAdmin')).not.toContain(privilege);
    }
  });

  it.each([
    ['PVEAuditor', ['Datastore.Audit', 'Mapping.Audit', 'Pool.Audit', 'SDN.Audit', 'Sys.Audit', 'VM.Audit', 'VM.GuestAgent.Audit']],
    [
      'PVEVMUser',
      [
        'VM.Audit',
        'VM.Backup',
        'VM.Config.CDROM',
        'VM.Config.Cloudinit',
        'VM.Console',
        'VM.GuestAgent.Audit',
        'VM.GuestAgent.FileRead',
        'VM.GuestAgent.FileSystemMgmt',
        'VM.GuestAgent.FileWrite',
        'VM.PowerMgmt',
      ],
    ],
    ['PVETemplateUser', ['VM.Audit', 'VM.Clone']],
    ['PVEDatastoreUser', ['Datastore.AllocateSpace', 'Datastore.Audit']],
    ['PVESysAdmin', ['Sys.Audit', 'Sys.Console', 'Sys.Syslog']],
    ['PVEUserAdmin', ['Group.Allocate', 'Realm.AllocateUser', 'User.Modify']],
    ['PVESDNUser', ['SDN.Audit', 'SDN.Use']],
    ['PVEPoolUser', ['Pool.Audit']],
  ])('%s holds exactly PVE’s privileges', (roleid, privileges) => {
    expect(privilegesOf(roleid)).toEqual([...privileges].sort());
  });

  it('reserves PVE-prefixed and built-in role ids', () => {
    expect(isReservedRoleId('PVEAnything')).toBe(true);
    expect(isReservedRoleId('Administrator')).toBe(true);
    expect(isReservedRoleId('Operators')).toBe(false);
  });
});
