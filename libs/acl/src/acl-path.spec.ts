import { isValidAclPath, normalizeAclPath, pathChain } from './acl-path.js';

describe('ACL paths', () => {
  it('normalises duplicate and trailing slashes', () => {
    expect(normalizeAclPath('//vms//100/')).toBe('/vms/100');
    expect(normalizeAclPath('/')).toBe('/');
    expect(normalizeAclPath('')).toBe('/');
  });

  it.each([
    '/',
    '/vms',
    '/vms/100',
    '/storage/local',
    '/nodes/pve1',
    '/pool/dev',
    '/pool/a/b/c',
    '/access/groups/admins',
    '/access/realm/pve',
    '/sdn/zones/z1/vnet1/10',
    '/mapping/notifications',
    '/mapping/pci/gpu0',
  ])('accepts %s', (path) => expect(isValidAclPath(path)).toBe(true));

  it.each([
    '/vms/99',
    '/vms/abc',
    '/pool/a/b/c/d',
    '/things',
    '/storage/local/extra',
    '/nodes/pve1/qemu',
    '/vms/100;rm',
    '/sdn/zones/z/v/10000',
  ])('rejects %s', (path) => expect(isValidAclPath(path)).toBe(false));

  it('walks from the root to the target', () => {
    expect(pathChain('/vms/100')).toEqual(['/', '/vms', '/vms/100']);
    expect(pathChain('/')).toEqual(['/']);
  });
});
