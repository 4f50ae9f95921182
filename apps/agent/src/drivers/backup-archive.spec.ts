import { BackupFile } from '@corral/protocol';
import { waitFor } from '@corral/testing';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deleteVolume } from '../commands/storage/volume-delete.js';
import { CommandFailure } from '../host/command-failure.js';
import { openHost } from '../host/host.js';
import {
  backupFileName,
  backupOwner,
  captureLog,
  extractArchive,
  makeBackupStaging,
  newBackupFile,
  readArchiveMember,
  readBackupConfig,
  writeArchive,
  writeBackupSidecars,
} from './backup-archive.js';

describe('backup archives', () => {
  let dir: string;
  let storage: string;
  let source: string;
  const signal = new AbortController().signal;
  const at = new Date(2025, 0, 31, 2, 0, 0);
  const dump = () => readdir(join(storage, 'dump')).catch(() => []);

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-archive-'));
    storage = join(dir, 'var/lib/vz');
    source = join(dir, 'staging');
    await mkdir(join(source, 'etc/vzdump'), { recursive: true });
    await writeFile(join(source, 'qemu-server.conf'), 'memory: 512\nscsi0: local:100/vm-100-disk-0.qcow2,size=1G\n');
    await writeFile(join(source, 'scsi0.qcow2'), Buffer.alloc(256 * 1024, 7));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("names an archive after the guest and the node's local time, as the protocol's BackupFile wants", () => {
    expect(backupFileName('qemu', 100, 'zstd', at)).toBe('dump/vzdump-qemu-100-2025_01_31-02_00_00.tar.zst');
    expect(backupFileName('lxc', 200, 'gzip', new Date(2024, 11, 9, 23, 5, 7))).toBe('dump/vzdump-lxc-200-2024_12_09-23_05_07.tar.gz');
    expect(BackupFile.safeParse(backupFileName('qemu', 100, 'none', at)).success).toBe(true);
    expect(backupOwner('dump/vzdump-lxc-200-2024_12_09-23_05_07.tar.gz')).toEqual({ type: 'lxc', vmid: 200 });
  });

  it('names a new backup after a second no backup of the guest has in dump/ (any compression, or its log)', async () => {
    const first = await newBackupFile(storage, 'qemu', 100, 'zstd', signal);
    await mkdir(join(storage, 'dump'), { recursive: true });
    await writeFile(join(storage, first.replace(/\.tar\.zst$/, '.log')), '');
    const second = await newBackupFile(storage, 'qemu', 100, 'gzip', signal);
    expect(second.replace(/\.tar\.gz$/, '')).not.toBe(first.replace(/\.tar\.zst$/, ''));
    expect(second > first).toBe(true);
    // Other guests' and other types' names do not hold a guest back.
    expect(await newBackupFile(storage, 'lxc', 100, 'zstd', signal)).toMatch(/^dump\/vzdump-lxc-100-/);
  });

  it('stages in a hidden folder of its own in dump/, one per caller', async () => {
    const file = backupFileName('qemu', 100, 'zstd', at);
    const [first, second] = await Promise.all([makeBackupStaging(storage, file), makeBackupStaging(storage, file)]);
    expect(first).not.toBe(second);
    expect((await dump()).every((name) => name.startsWith('.vzdump-qemu-100-2025_01_31-02_00_00.tar.zst.staging-'))).toBe(true);
    expect(await readdir(first)).toEqual([]);
  });

  it.each(['zstd', 'gzip', 'none'] as const)('writes a %s archive under its name only once whole, and reads it back', async (compress) => {
    const file = backupFileName('qemu', 100, compress, at);
    const size = await writeArchive({
      storagePath: storage,
      file,
      compress,
      sources: [{ dir: source, members: ['qemu-server.conf', 'scsi0.qcow2'] }],
      signal,
    });
    expect(await dump()).toEqual([file.slice('dump/'.length)]);
    expect((await stat(join(storage, file))).size).toBe(size);
    expect(await readArchiveMember(join(storage, file), 'qemu-server.conf', signal)).toContain('memory: 512');
    const into = join(dir, 'out');
    await mkdir(into);
    await extractArchive(join(storage, file), into, { members: ['scsi0.qcow2'], signal });
    expect(await readdir(into)).toEqual(['scsi0.qcow2']);
    expect((await readFile(join(into, 'scsi0.qcow2'))).equals(Buffer.alloc(256 * 1024, 7))).toBe(true);
  });

  it('archives several folders in order, leaves out what is excluded, and never overwrites an archive', async () => {
    const root = join(dir, 'rootfs');
    await mkdir(join(root, 'tmp'), { recursive: true });
    await writeFile(join(root, 'tmp/junk'), 'x');
    await writeFile(join(root, 'hostname'), 'ct200\n');
    await writeFile(join(source, 'etc/vzdump/pct.conf'), 'hostname: ct200\n');
    const file = backupFileName('lxc', 200, 'zstd', at);
    const write = () =>
      writeArchive({
        storagePath: storage,
        file,
        compress: 'zstd',
        sources: [
          { dir: source, members: ['./etc/vzdump/pct.conf'] },
          { dir: root, members: ['.'] },
        ],
        exclude: ['./tmp/?*'],
        signal,
      });
    await write();
    await expect(readBackupConfig(storage, file, signal)).resolves.toEqual({ type: 'lxc', vmid: 200, config: 'hostname: ct200\n' });
    const into = join(dir, 'out');
    await mkdir(into);
    await extractArchive(join(storage, file), into, { exclude: ['./etc/vzdump'], signal });
    expect((await readdir(into)).sort()).toEqual(['hostname', 'tmp']);
    expect(await readdir(join(into, 'tmp'))).toEqual([]);
    await expect(write()).rejects.toThrow(`backup archive ${file} exists already`);
  });

  it('leaves nothing that looks like a backup when tar fails or the backup is stopped', async () => {
    const file = backupFileName('qemu', 100, 'zstd', at);
    const missing = writeArchive({
      storagePath: storage,
      file,
      compress: 'zstd',
      sources: [{ dir: source, members: ['nope.qcow2'] }],
      signal,
    });
    await expect(missing).rejects.toThrow(/tar failed \(exit code 2\): .*nope\.qcow2/);
    expect(await dump()).toEqual([]);
    // Random bytes take gzip a few seconds: the backup is stopped once its temporary file shows.
    await writeFile(join(source, 'big.qcow2'), randomBytes(96 * 1024 * 1024));
    const controller = new AbortController();
    const stopped = writeArchive({
      storagePath: storage,
      file,
      compress: 'gzip',
      sources: [{ dir: source, members: ['big.qcow2'] }],
      signal: controller.signal,
    });
    await waitFor(async () => (await dump()).length > 0, { timeoutMs: 10_000, what: 'the temporary archive' });
    controller.abort(new CommandFailure('timeout', 'stopped by the test'));
    await expect(stopped).rejects.toThrow('stopped by the test');
    expect(await dump()).toEqual([]);
  });

  it('refuses an archive without its config, or a member longer than 1 MiB', async () => {
    const file = backupFileName('qemu', 100, 'zstd', at);
    await writeFile(join(source, 'large'), Buffer.alloc(1_100_000, 65));
    await writeArchive({
      storagePath: storage,
      file,
      compress: 'zstd',
      sources: [{ dir: source, members: ['scsi0.qcow2', 'large'] }],
      signal,
    });
    await expect(readBackupConfig(storage, file, signal)).rejects.toThrow(
      'backup archive vzdump-qemu-100-2025_01_31-02_00_00.tar.zst holds no qemu-server.conf',
    );
    await expect(readArchiveMember(join(storage, file), 'large', signal)).rejects.toThrow(
      'large in vzdump-qemu-100-2025_01_31-02_00_00.tar.zst is longer than 1048576 bytes',
    );
    await expect(readBackupConfig(storage, 'dump/vzdump-qemu-101-2025_01_31-02_00_00.tar', signal)).rejects.toThrow(
      'backup archive dump/vzdump-qemu-101-2025_01_31-02_00_00.tar does not exist',
    );
  });

  it('writes the log and notes where PVE has them, so that deleting the backup removes them', async () => {
    const file = backupFileName('qemu', 100, 'zstd', at);
    await writeArchive({ storagePath: storage, file, compress: 'zstd', sources: [{ dir: source, members: ['qemu-server.conf'] }], signal });
    const logged: string[] = [];
    const captured = captureLog({ signal, log: (line) => logged.push(line) });
    captured.context.log('INFO: starting new backup job');
    expect(logged).toEqual(['INFO: starting new backup job']);
    expect(captured.lines).toEqual([expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} INFO: starting new backup job$/)]);
    await writeBackupSidecars(storage, file, { log: captured.lines, notes: 'before the upgrade' });
    expect((await dump()).sort()).toEqual([
      'vzdump-qemu-100-2025_01_31-02_00_00.log',
      'vzdump-qemu-100-2025_01_31-02_00_00.tar.zst',
      'vzdump-qemu-100-2025_01_31-02_00_00.tar.zst.notes',
    ]);
    expect(await readFile(join(storage, 'dump/vzdump-qemu-100-2025_01_31-02_00_00.log'), 'utf8')).toMatch(
      /INFO: starting new backup job\n$/,
    );
    await deleteVolume(await openHost(dir), { path: '/var/lib/vz', mountpoint: false, file });
    expect(await dump()).toEqual([]);
  });
});
