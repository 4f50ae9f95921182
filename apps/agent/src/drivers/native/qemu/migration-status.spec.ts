import { migrationProgress, mirrorProgress, PROGRESS_EVERY_MS, type JobStatus } from './migration-status.js';

const MiB = 1024 * 1024;
const job = (id: string, status: string, current: number, extra: Partial<JobStatus> = {}): JobStatus => ({
  id,
  status,
  'current-progress': current * MiB,
  'total-progress': 64 * MiB,
  ...extra,
});

describe('mirrorProgress', () => {
  it('is done once every mirror is ready, saying so once per disk, with a progress line at most every PROGRESS_EVERY_MS', () => {
    const lines: string[] = [];
    let now = 0;
    const ready = mirrorProgress(
      new Set(['scsi0', 'scsi1']),
      (line) => lines.push(line),
      () => now,
    );
    expect(ready([job('scsi0', 'running', 8), job('scsi1', 'running', 0)])).toBe(false);
    now = PROGRESS_EVERY_MS;
    expect(ready([job('scsi0', 'ready', 64), job('scsi1', 'running', 16)])).toBe(false);
    now += 1;
    expect(ready([job('scsi0', 'ready', 64), job('scsi1', 'running', 32)])).toBe(false);
    expect(ready([job('scsi0', 'ready', 64), job('scsi1', 'ready', 64), job('other', 'running', 1)])).toBe(true);
    expect(lines).toEqual(['scsi0: in sync (64.0 MiB)', 'scsi1: 16.0 MiB of 64.0 MiB', 'scsi1: in sync (64.0 MiB)']);
  });

  it('is done at once without disks to mirror', () => {
    expect(mirrorProgress(new Set(), () => undefined)([])).toBe(true);
  });

  it.each([
    [[job('scsi0', 'concluded', 3, { error: 'Input/output error' })], 'scsi0: Input/output error'],
    [[job('scsi0', 'concluded', 64)], 'scsi0 ended before it was in sync'],
    [[], 'the mirror job scsi0 is gone'],
  ])('fails for %j', (jobs, message) => {
    expect(() => mirrorProgress(new Set(['scsi0']), () => undefined)(jobs)).toThrow(message);
  });
});

describe('migrationProgress', () => {
  it('answers the status, logging each new one at once and the transfer at most every PROGRESS_EVERY_MS', () => {
    const lines: string[] = [];
    let now = 0;
    const status = migrationProgress(
      (line) => lines.push(line),
      () => now,
    );
    expect(status({ status: 'setup' })).toBe('setup');
    expect(status({ status: 'active', ram: { transferred: 10 * MiB, total: 256 * MiB } })).toBe('active');
    now = PROGRESS_EVERY_MS - 1;
    expect(status({ status: 'active', ram: { transferred: 20 * MiB, total: 256 * MiB } })).toBe('active');
    now = PROGRESS_EVERY_MS;
    expect(status({ status: 'active', ram: { transferred: 120 * MiB, total: 256 * MiB } })).toBe('active');
    expect(status({ status: 'completed', ram: { transferred: 130 * MiB, total: 256 * MiB }, downtime: 31 })).toBe('completed');
    expect(lines).toEqual([
      'migration status: setup',
      'migration status: active',
      'migration active, 120.0 MiB of 256.0 MiB VM-state transferred',
      'migration completed, 130.0 MiB of 256.0 MiB VM-state transferred, downtime 31 ms',
    ]);
  });

  it("fails a failed or cancelled migration with QEMU's reason", () => {
    const status = migrationProgress(() => undefined);
    expect(() => status({ status: 'failed', 'error-desc': 'Failed to connect to 192.0.2.12:40124: Connection refused' })).toThrow(
      'Failed to connect to 192.0.2.12:40124: Connection refused',
    );
    expect(() => status({ status: 'cancelled' })).toThrow('the migration was cancelled');
  });
});
