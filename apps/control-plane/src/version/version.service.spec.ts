import { VersionService } from './version.service.js';

describe('VersionService', () => {
  it('reports a PVE 9 version that semver parsers take, and the commit as repoid', () => {
    const info = new VersionService({ version: '1.2.3', commit: '0123456789abcdef0123456789abcdef01234567' }).info();
    expect(info).toEqual({ version: '9.1.0', release: '9.1', repoid: '0123456789abcdef', 'corral-version': '1.2.3' });
  });

  it('reports zeros as repoid when built outside git', () => {
    expect(new VersionService({ version: '1.2.3', commit: null }).info().repoid).toBe('0000000000000000');
  });
});
