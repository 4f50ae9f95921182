import { ApiError } from '../errors/api-error.js';
import { vzdumpOptionsOf, type VzdumpParams } from './vzdump-params.js';

function refusal(params: VzdumpParams): unknown {
  try {
    vzdumpOptionsOf(params);
  } catch (error) {
    if (error instanceof ApiError)
      return Object.fromEntries((error.details.problems ?? []).map((problem) => [problem.param, problem.message]));
    throw error;
  }
  throw new Error('accepted');
}

describe('the options of a backup run', () => {
  it("fills in PVE's defaults", () => {
    expect(vzdumpOptionsOf({ vmid: [100, 101, 100] })).toStrictEqual({
      selection: { kind: 'vmids', vmids: [100, 101] },
      storage: 'local',
      mode: 'snapshot',
      compress: 'none',
      remove: true,
      stopwaitS: 600,
    });
  });

  it('takes all=1 or a pool with exclusions, and the rest as given', () => {
    expect(
      vzdumpOptionsOf({
        all: true,
        exclude: [101],
        storage: 'b',
        mode: 'stop',
        compress: 'zstd',
        remove: false,
        stopwait: 2,
        'prune-backups': 'keep-last=2',
      }),
    ).toStrictEqual({
      selection: { kind: 'all', exclude: [101] },
      storage: 'b',
      mode: 'stop',
      compress: 'zstd',
      remove: false,
      stopwaitS: 120,
      pruneBackups: { 'keep-last': 2 },
    });
    expect(vzdumpOptionsOf({ pool: 'web', compress: 'gzip' }).selection).toStrictEqual({ kind: 'pool', pool: 'web', exclude: [] });
  });

  it('refuses what contradicts itself, naming the parameter', () => {
    expect(refusal({})).toStrictEqual({ vmid: expect.stringContaining('vmid, all=1 or pool') });
    expect(refusal({ vmid: [100], pool: 'web' })).toStrictEqual({ pool: 'vmid and pool exclude each other: give one' });
    expect(refusal({ vmid: [100], exclude: [101] })).toStrictEqual({ exclude: 'applies to all=1 or pool only' });
    expect(refusal({ all: true, compress: 'lzo' })).toStrictEqual({ compress: expect.stringContaining('LZO is not supported') });
    expect(refusal({ all: true, 'prune-backups': 'keep-all=1,keep-last=2' })).toStrictEqual({
      'prune-backups': expect.stringContaining('keep-all cannot be combined'),
    });
  });
});
