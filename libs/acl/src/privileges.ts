/**
 * PVE 9's privileges, by group and by who gets them: `root` ones only through
 * Administrator, `admin` ones through the group's admin role, `user` and `audit` ones through its
 * user and audit roles too. The built-in roles are derived from this table (roles.ts).
 */
export const PRIVILEGE_GROUPS = {
  VM: {
    root: [],
    admin: [
      'VM.Config.Disk',
      'VM.Config.CPU',
      'VM.Config.Memory',
      'VM.Config.Network',
      'VM.Config.HWType',
      'VM.Config.Options',
      'VM.Allocate',
      'VM.Clone',
      'VM.GuestAgent.Unrestricted',
      'VM.Migrate',
      'VM.Replicate',
      'VM.Snapshot',
      'VM.Snapshot.Rollback',
    ],
    user: [
      'VM.Config.CDROM',
      'VM.Config.Cloudinit',
      'VM.Console',
      'VM.Backup',
      'VM.GuestAgent.FileRead',
      'VM.GuestAgent.FileSystemMgmt',
      'VM.GuestAgent.FileWrite',
      'VM.PowerMgmt',
    ],
    audit: ['VM.Audit', 'VM.GuestAgent.Audit'],
  },
  Sys: {
    root: ['Sys.PowerMgmt', 'Sys.Modify', 'Sys.Incoming', 'Sys.AccessNetwork'],
    admin: ['Sys.Console', 'Sys.Syslog'],
    user: [],
    audit: ['Sys.Audit'],
  },
  Datastore: {
    root: [],
    admin: ['Datastore.Allocate', 'Datastore.AllocateTemplate'],
    user: ['Datastore.AllocateSpace'],
    audit: ['Datastore.Audit'],
  },
  SDN: { root: [], admin: ['SDN.Allocate', 'SDN.Audit'], user: ['SDN.Use'], audit: ['SDN.Audit'] },
  User: { root: ['Realm.Allocate'], admin: ['User.Modify', 'Group.Allocate', 'Realm.AllocateUser'], user: [], audit: [] },
  Pool: { root: [], admin: ['Pool.Allocate'], user: ['Pool.Audit'], audit: ['Pool.Audit'] },
  Mapping: { root: [], admin: ['Mapping.Modify'], user: ['Mapping.Use'], audit: ['Mapping.Audit'] },
} as const;

type Groups = typeof PRIVILEGE_GROUPS;
type Listed = { [G in keyof Groups]: Groups[G][keyof Groups[G]] }[keyof Groups];

/** A privilege name; `Permissions.Modify` belongs to no group and only to Administrator. */
export type Privilege = (Listed extends readonly (infer P)[] ? P : never) | 'Permissions.Modify';

export const PRIVILEGES: readonly Privilege[] = [
  ...new Set<Privilege>([
    ...Object.values(PRIVILEGE_GROUPS).flatMap((group) => [...group.root, ...group.admin, ...group.user, ...group.audit]),
    'Permissions.Modify',
  ]),
].sort();

export function isPrivilege(name: string): name is Privilege {
  return (PRIVILEGES as readonly string[]).includes(name);
}
