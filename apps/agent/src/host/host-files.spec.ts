import { chmod, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openHost, type Host } from './host.js';
import { readHostFile, renameHostFile, writeHostFile } from './host-files.js';

describe('host files', () => {
  let dir: string;
  let host: Host;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-files-'));
    host = await openHost(dir);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads a missing file as undefined', async () => {
    expect(await readHostFile(host, '/etc/resolv.conf')).toBeUndefined();
  });

  it('writes a new file with its directories, mode 0644 by default, and leaves no temporary file', async () => {
    await writeHostFile(host, '/etc/corral/firewall.nft', 'table inet corral\n');
    expect(await readFile(join(dir, 'etc/corral/firewall.nft'), 'utf8')).toBe('table inet corral\n');
    expect((await stat(join(dir, 'etc/corral/firewall.nft'))).mode & 0o777).toBe(0o644);
    expect(await readdir(join(dir, 'etc/corral'))).toEqual(['firewall.nft']);
  });

  it('keeps the mode of the file it replaces', async () => {
    await writeFile(join(dir, 'secret'), 'old');
    await chmod(join(dir, 'secret'), 0o600);
    await writeHostFile(host, '/secret', 'new');
    expect(await readHostFile(host, '/secret')).toBe('new');
    expect((await stat(join(dir, 'secret'))).mode & 0o777).toBe(0o600);
  });

  it('replaces a symbolic link instead of writing through it', async () => {
    const outside = join(dir, 'outside');
    await writeFile(outside, 'untouched');
    await symlink(outside, join(dir, 'link'));
    await writeHostFile(host, '/link', 'replaced');
    expect(await readFile(outside, 'utf8')).toBe('untouched');
    expect(await readHostFile(host, '/link')).toBe('replaced');
  });

  it('renames one host file over another', async () => {
    await writeHostFile(host, '/a.new', 'pending');
    await writeHostFile(host, '/a', 'current');
    await renameHostFile(host, '/a.new', '/a');
    expect(await readHostFile(host, '/a')).toBe('pending');
    expect(await readHostFile(host, '/a.new')).toBeUndefined();
  });
});
