import { childAuditor } from './child-auditor.js';
import { allows, type AccessConfig, type AclEntry, type Subject } from './evaluate.js';
import { BUILT_IN_ROLES } from './roles.js';

/** Propagating ACL entries from `[path, type, ugid, roleid]`. */
const aclOf = (rows: [string, AclEntry['type'], string, string][]): AclEntry[] =>
  rows.map(([path, type, ugid, roleid]) => ({ path, type, ugid, roleid, propagate: true }));
const SUBJECTS: Subject[] = [
  { kind: 'user', userid: 'root@pam', groups: [] },
  { kind: 'user', userid: 'alice@pve', groups: ['ops'] },
  { kind: 'user', userid: 'bob@pve', groups: [] },
  { kind: 'token', userid: 'alice@pve', groups: ['ops'], tokenid: 'alice@pve!ci', privsep: true },
  { kind: 'token', userid: 'alice@pve', groups: ['ops'], tokenid: 'alice@pve!all', privsep: false },
];

describe("the auditor of a parent's children", () => {
  it('answers for every child as the full evaluation does: inherited roles, entries of its own, NoAccess, pools, tokens', () => {
    const config: AccessConfig = {
      acl: aclOf([
        ['/vms', 'group', 'ops', 'PVEAuditor'],
        ['/vms/101', 'user', 'alice@pve', 'NoAccess'],
        ['/vms//102/', 'user', 'bob@pve', 'PVEVMUser'],
        ['/vms/103', 'token', 'alice@pve!ci', 'PVEAuditor'],
        ['/vms/104/extra', 'user', 'bob@pve', 'PVEVMUser'],
        ['/pool/web', 'user', 'bob@pve', 'PVEAuditor'],
        ['/pool/dark', 'group', 'ops', 'NoAccess'],
        ['/vms/0', 'user', 'bob@pve', 'PVEAuditor'],
      ]),
      roles: BUILT_IN_ROLES,
      memberPools: new Map([
        ['/vms/105', ['web']],
        ['/vms/106', ['dark']],
      ]),
    };
    for (const subject of SUBJECTS) {
      const audits = childAuditor(config, subject, '/vms', ['VM.Audit']);
      for (let vmid = 100; vmid <= 107; vmid++)
        expect([subject, vmid, audits(vmid)]).toEqual([subject, vmid, allows(config, subject, `/vms/${vmid}`, ['VM.Audit'])]);
    }
    // Some answer each way, so that the comparison above means something.
    const alice = childAuditor(config, SUBJECTS[1] as Subject, '/vms', ['VM.Audit']);
    expect([alice(100), alice(101), alice(106)]).toEqual([true, false, false]);
  });

  it('is made once per access configuration, subject, parent and privileges, and anew for a new configuration', () => {
    const config: AccessConfig = { acl: aclOf([['/', 'user', 'alice@pve', 'PVEAuditor']]), roles: BUILT_IN_ROLES, memberPools: new Map() };
    const alice = SUBJECTS[1] as Subject;
    expect(childAuditor(config, alice, '/vms', ['VM.Audit'])).toBe(childAuditor(config, alice, '/vms', ['VM.Audit']));
    expect(childAuditor(config, alice, '/storage', ['Datastore.Audit'])).not.toBe(childAuditor(config, alice, '/vms', ['VM.Audit']));
    const changed: AccessConfig = { ...config, acl: [] };
    expect(childAuditor(changed, alice, '/vms', ['VM.Audit'])(100)).toBe(false);
    expect(childAuditor(config, alice, '/vms', ['VM.Audit'])(100)).toBe(true);
  });
});
