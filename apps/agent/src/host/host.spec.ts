import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostPath, openHost } from './host.js';

describe('the host root', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-host-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("is live only when it is '/'", async () => {
    expect(await openHost('/')).toEqual({ root: '/', live: true });
    expect(await openHost(dir)).toEqual({ root: await realpath(dir), live: false });
  });

  it('resolves to the real path, so a link to / is live', async () => {
    await symlink('/', join(dir, 'slash'));
    expect(await openHost(join(dir, 'slash'))).toEqual({ root: '/', live: true });
  });

  it('refuses a missing root and a file', async () => {
    await expect(openHost(join(dir, 'missing'))).rejects.toThrow(`host root '${join(dir, 'missing')}' does not exist`);
    await writeFile(join(dir, 'file'), '');
    await expect(openHost(join(dir, 'file'))).rejects.toThrow(`host root '${join(dir, 'file')}' is not a directory`);
  });

  it('puts host paths under the root and refuses one that leaves it', async () => {
    await mkdir(join(dir, 'etc'));
    const host = await openHost(dir);
    expect(hostPath(host, '/etc/resolv.conf')).toBe(join(host.root, 'etc/resolv.conf'));
    expect(hostPath(host, '/etc/../etc/..hidden')).toBe(join(host.root, 'etc/..hidden'));
    expect(hostPath(await openHost('/'), '/etc/hosts')).toBe('/etc/hosts');
    expect(() => hostPath(host, '/../etc/passwd')).toThrow("host path '/../etc/passwd' leaves the host root");
    expect(() => hostPath(host, '/etc/../../x')).toThrow('leaves the host root');
    expect(() => hostPath(host, 'etc/resolv.conf')).toThrow("host path 'etc/resolv.conf' must be absolute");
  });
});
