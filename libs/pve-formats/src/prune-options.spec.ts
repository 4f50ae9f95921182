import { formatPruneOptions, keepsEverything, parsePruneOptions, PruneOptionsError, validatePruneOptions } from './prune-options.js';

const failure = (run: () => unknown): PruneOptionsError => {
  try {
    run();
  } catch (error) {
    if (error instanceof PruneOptionsError) return error;
    throw error;
  }
  throw new Error('expected a PruneOptionsError');
};

describe('prune-backups property string', () => {
  it('parses the admin guide’s vzdump example', () => {
    expect(parsePruneOptions('keep-last=3,keep-daily=13,keep-yearly=9')).toEqual({ 'keep-last': 3, 'keep-daily': 13, 'keep-yearly': 9 });
  });

  it('parses every option, keep-all in PVE’s boolean spellings, and skips empty items', () => {
    expect(parsePruneOptions('keep-hourly=1, keep-weekly=0,,keep-monthly=12')).toEqual({
      'keep-hourly': 1,
      'keep-weekly': 0,
      'keep-monthly': 12,
    });
    expect(parsePruneOptions('keep-all=1')).toEqual({ 'keep-all': true });
    expect(parsePruneOptions('keep-all=No')).toEqual({ 'keep-all': false });
    expect(parsePruneOptions('')).toEqual({});
  });

  it.each([
    ['keep-lasts=3', 'keep-lasts', "unknown retention option 'keep-lasts'"],
    ['keep-last=-1', 'keep-last', "keep-last must be a whole number of 0 or more, not '-1'"],
    ['keep-daily=1.5', 'keep-daily', "keep-daily must be a whole number of 0 or more, not '1.5'"],
    ['keep-daily', 'keep-daily', "keep-daily must be a whole number of 0 or more, not ''"],
    ['keep-all=maybe', 'keep-all', "keep-all must be 0 or 1, not 'maybe'"],
    ['keep-last=1,keep-last=2', 'keep-last', 'keep-last is given twice'],
    ['keep-all=1,keep-last=3,keep-daily=7', 'keep-all', 'keep-all cannot be combined with keep-last, keep-daily'],
  ])('rejects %s naming %s', (text, option, message) => {
    const error = failure(() => parsePruneOptions(text));
    expect(error.option).toBe(option);
    expect(error.message).toBe(message);
  });

  it('lets keep-all stand beside counts of 0, as PVE does', () => {
    expect(parsePruneOptions('keep-all=1,keep-last=0')).toEqual({ 'keep-all': true, 'keep-last': 0 });
  });

  it('validates options given as an object (a backup job’s JSON)', () => {
    expect(failure(() => validatePruneOptions({ 'keep-weekly': 2.5 })).message).toBe(
      "keep-weekly must be a whole number of 0 or more, not '2.5'",
    );
    expect(failure(() => validatePruneOptions({ 'keep-all': true, 'keep-yearly': 1 })).option).toBe('keep-all');
  });

  it('formats keys in PVE’s order and round-trips', () => {
    const text = formatPruneOptions({ 'keep-yearly': 9, 'keep-last': 3, 'keep-daily': 13, 'keep-hourly': 0 });
    expect(text).toBe('keep-daily=13,keep-hourly=0,keep-last=3,keep-yearly=9');
    expect(formatPruneOptions(parsePruneOptions(text))).toBe(text);
    expect(formatPruneOptions({ 'keep-all': true })).toBe('keep-all=1');
    expect(formatPruneOptions({})).toBe('');
  });

  it('keeps everything with keep-all, with no option, or with only zero counts', () => {
    expect(keepsEverything({ 'keep-all': true })).toBe(true);
    expect(keepsEverything({})).toBe(true);
    expect(keepsEverything({ 'keep-all': false, 'keep-last': 0 })).toBe(true);
    expect(keepsEverything({ 'keep-last': 1 })).toBe(false);
  });
});
