import { BUILT_IN_ROLES, type Privilege, type Role } from '@corral/acl';
import { missingToGrant } from './grant-limit.js';

function role(roleid: string): Role {
  const found = BUILT_IN_ROLES.get(roleid);
  if (!found) throw new Error(`no built-in role ${roleid}`);
  return found;
}
const held = (entries: [Privilege, boolean][]) => new Map(entries);
const add = { remove: false, propagate: true };

describe('missingToGrant', () => {
  it('lets a caller with Permissions.Modify grant anything, NoAccess included', () => {
    expect(missingToGrant(held([['Permissions.Modify', false]]), role('Administrator'), add)).toEqual([]);
    expect(missingToGrant(held([['Permissions.Modify', false]]), role('NoAccess'), add)).toEqual([]);
  });

  it('lets a caller grant a role whose privileges it holds, propagating', () => {
    expect(
      missingToGrant(
        held([
          ['VM.Allocate', true],
          ['VM.Audit', true],
          ['VM.Clone', true],
        ]),
        role('PVETemplateUser'),
        add,
      ),
    ).toEqual([]);
  });

  it('names the privileges of the role the caller lacks', () => {
    expect(
      missingToGrant(
        held([
          ['VM.Allocate', true],
          ['VM.Audit', true],
        ]),
        role('PVETemplateUser'),
        add,
      ),
    ).toEqual(['VM.Clone']);
  });

  it('needs the privileges to propagate only when adding a propagating entry', () => {
    const local = held([
      ['VM.Audit', false],
      ['VM.Clone', false],
    ]);
    expect(missingToGrant(local, role('PVETemplateUser'), add).sort()).toEqual(['VM.Audit', 'VM.Clone']);
    expect(missingToGrant(local, role('PVETemplateUser'), { remove: false, propagate: false })).toEqual([]);
    expect(missingToGrant(local, role('PVETemplateUser'), { remove: true, propagate: true })).toEqual([]);
  });

  it('refuses NoAccess without Permissions.Modify, though it holds no privilege', () => {
    expect(missingToGrant(held([['VM.Allocate', true]]), role('NoAccess'), add)).toEqual(['Permissions.Modify']);
  });
});
