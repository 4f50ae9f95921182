import { chown, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeRootCredentials } from './root-credentials.js';

const HASH = '$6$abcdefgh$ltjgWl6579NluT/Vi1nwEvcil.G5Nbc4NiXZaNGStk8PSwGfQv72N2CKPPrVACtLtip/cZ/1GM/O6IND4WQhG.';
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl admin@example';

describe('writeRootCredentials', () => {
  let rootfs: string;

  beforeEach(async () => {
    rootfs = await mkdtemp(join(tmpdir(), 'corral-rootfs-'));
    await mkdir(join(rootfs, 'etc'));
    await mkdir(join(rootfs, 'root'), { mode: 0o700 });
  });

  afterEach(async () => {
    await rm(rootfs, { recursive: true, force: true });
  });

  it("sets root's hash in /etc/shadow and leaves the other accounts and fields alone", async () => {
    await writeFile(join(rootfs, 'etc/shadow'), 'root:*:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n');
    await writeRootCredentials(rootfs, { passwordHash: HASH });
    expect(await readFile(join(rootfs, 'etc/shadow'), 'utf8')).toBe(`root:${HASH}:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n`);
  });

  it('adds a root line to a shadow file that has none', async () => {
    await writeFile(join(rootfs, 'etc/shadow'), 'daemon:*:19000:0:99999:7:::\n');
    await writeRootCredentials(rootfs, { passwordHash: HASH });
    expect((await readFile(join(rootfs, 'etc/shadow'), 'utf8')).split('\n')).toEqual([
      'daemon:*:19000:0:99999:7:::',
      expect.stringMatching(/^root:\$6\$abcdefgh\$[^:]+:\d+:0:99999:7:::$/),
      '',
    ]);
  });

  it('sets the hash in /etc/passwd where the template has no shadow file (busybox)', async () => {
    await writeFile(join(rootfs, 'etc/passwd'), 'root::0:0:root:/root:/bin/sh\n');
    await writeRootCredentials(rootfs, { passwordHash: HASH });
    expect(await readFile(join(rootfs, 'etc/passwd'), 'utf8')).toBe(`root:${HASH}:0:0:root:/root:/bin/sh\n`);
  });

  it('writes the keys to /root/.ssh/authorized_keys, private to the owner of /root', async () => {
    await chown(join(rootfs, 'root'), 100_000, 100_000);
    await writeRootCredentials(rootfs, { sshPublicKeys: KEY });
    expect(await readFile(join(rootfs, 'root/.ssh/authorized_keys'), 'utf8')).toBe(`${KEY}\n`);
    const [dir, file] = [await stat(join(rootfs, 'root/.ssh')), await stat(join(rootfs, 'root/.ssh/authorized_keys'))];
    expect([dir.mode & 0o777, dir.uid, file.mode & 0o777, file.uid, file.gid]).toEqual([0o700, 100_000, 0o600, 100_000, 100_000]);
  });

  it('follows no symbolic link inside the container to a file on the host', async () => {
    const outside = join(rootfs, '..', `${rootfs.split('/').pop() ?? ''}-host-shadow`);
    await writeFile(outside, 'root:*:1:0:99999:7:::\n');
    try {
      await symlink(outside, join(rootfs, 'etc/shadow'));
      await expect(writeRootCredentials(rootfs, { passwordHash: HASH })).rejects.toThrow('is not a regular file');
      await rm(join(rootfs, 'root'), { recursive: true });
      await symlink('/etc', join(rootfs, 'root'));
      await expect(writeRootCredentials(rootfs, { sshPublicKeys: KEY })).rejects.toThrow('is not a directory');
      expect(await readFile(outside, 'utf8')).toBe('root:*:1:0:99999:7:::\n');
    } finally {
      await rm(outside, { force: true });
    }
  });

  it('says so when the container has no account files', async () => {
    await expect(writeRootCredentials(rootfs, { passwordHash: HASH })).rejects.toThrow('neither /etc/shadow nor /etc/passwd');
  });
});
