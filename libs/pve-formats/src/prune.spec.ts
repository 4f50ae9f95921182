import { markBackupsForPrune, type PrunableBackup, type PruneMark } from './prune.js';

/** A backup named by its creation time (UTC, ISO 8601). */
const at = (iso: string, extra: Partial<PrunableBackup> = {}): PrunableBackup => ({
  id: iso,
  ctime: Date.parse(`${iso}Z`) / 1000,
  ...extra,
});

/** Backups at 02:00 UTC on every day from `first` to `last`, as a daily backup job makes them. */
function daily(first: string, last: string): PrunableBackup[] {
  const backups: PrunableBackup[] = [];
  for (let day = Date.parse(`${first}T02:00:00Z`); day <= Date.parse(`${last}T02:00:00Z`); day += 86_400_000) {
    backups.push(at(new Date(day).toISOString().slice(0, 10)));
  }
  return backups;
}

/** The ids kept by each option; the rest must be marked for removal. */
function keptBy(marks: readonly PruneMark[]): Record<string, string[]> {
  const kept: Record<string, string[]> = {};
  for (const mark of marks) {
    const key = mark.mark === 'keep' ? mark.reason : mark.mark;
    if (key !== 'remove') (kept[key] ??= []).push(mark.id);
  }
  return kept;
}

describe('markBackupsForPrune', () => {
  describe('the admin guide’s retention example: daily backups, kept for ten years', () => {
    const backups = daily('2014-01-01', '2025-06-15');
    const marks = markBackupsForPrune(backups, {
      'keep-last': 3,
      'keep-daily': 13,
      'keep-weekly': 8,
      'keep-monthly': 11,
      'keep-yearly': 9,
    });
    const kept = keptBy(marks);

    it('keeps the last three and the thirteen days before them: over two weeks of backups', () => {
      expect(kept['keep-last']).toEqual(['2025-06-15', '2025-06-14', '2025-06-13']);
      expect(kept['keep-daily']).toEqual(
        daily('2025-05-31', '2025-06-12')
          .map((b) => b.id)
          .reverse(),
      );
    });

    it('then keeps one per older week (the newest, a Sunday): two full months', () => {
      expect(kept['keep-weekly']).toEqual([
        '2025-05-25',
        '2025-05-18',
        '2025-05-11',
        '2025-05-04',
        '2025-04-27',
        '2025-04-20',
        '2025-04-13',
        '2025-04-06',
      ]);
    });

    it('then one per older month, skipping the days the weekly option already removed (March 31st shares a week with April 6th)', () => {
      expect(kept['keep-monthly']).toEqual([
        '2025-03-30',
        '2025-02-28',
        '2025-01-31',
        '2024-12-31',
        '2024-11-30',
        '2024-10-31',
        '2024-09-30',
        '2024-08-31',
        '2024-07-31',
        '2024-06-30',
        '2024-05-31',
      ]);
    });

    it('then one per older year, covering at least ten years, and removes everything else', () => {
      expect(kept['keep-yearly']).toEqual(
        ['2023', '2022', '2021', '2020', '2019', '2018', '2017', '2016', '2015'].map((year) => `${year}-12-31`),
      );
      expect(marks.filter((mark) => mark.mark === 'keep')).toHaveLength(3 + 13 + 8 + 11 + 9);
      expect(marks.filter((mark) => mark.mark === 'remove')).toHaveLength(backups.length - 44);
    });

    it('returns every backup once, newest first', () => {
      expect(marks.map((mark) => mark.id)).toEqual(backups.map((b) => b.id).reverse());
    });
  });

  it('keeps only the latest backup of an hour, a day, a week (admin guide: "only the latest is kept")', () => {
    const backups = [
      at('2025-06-10T10:05:00'),
      at('2025-06-10T10:45:00'),
      at('2025-06-10T09:59:59'),
      at('2025-06-10T09:00:00'),
      at('2025-06-10T08:30:00'),
    ];
    expect(keptBy(markBackupsForPrune(backups, { 'keep-hourly': 2 }))).toEqual({
      'keep-hourly': ['2025-06-10T10:45:00', '2025-06-10T09:59:59'],
    });
    expect(keptBy(markBackupsForPrune(backups, { 'keep-daily': 5 }))).toEqual({ 'keep-daily': ['2025-06-10T10:45:00'] });
  });

  it('lets a later option consider only older backups than those an earlier one covers', () => {
    // Tuesday and Monday of one ISO week, then the Sunday and Saturday before it.
    const backups = [
      at('2025-06-10T10:00:00'),
      at('2025-06-10T08:00:00'),
      at('2025-06-09T10:00:00'),
      at('2025-06-08T10:00:00'),
      at('2025-06-07T10:00:00'),
    ];
    const marks = markBackupsForPrune(backups, { 'keep-daily': 1, 'keep-weekly': 2 });
    expect(marks.map((mark) => mark.mark)).toEqual(['keep', 'remove', 'remove', 'keep', 'remove']);
    expect(keptBy(marks)).toEqual({ 'keep-daily': ['2025-06-10T10:00:00'], 'keep-weekly': ['2025-06-08T10:00:00'] });
  });

  it('reads weeks as ISO weeks across the new year', () => {
    // Monday 2024-12-30 belongs to the week of Sunday 2025-01-05; Sunday 2024-12-29 does not.
    const backups = [at('2025-01-05T02:00:00'), at('2024-12-30T02:00:00'), at('2024-12-29T02:00:00')];
    expect(keptBy(markBackupsForPrune(backups, { 'keep-weekly': 3 }))).toEqual({
      'keep-weekly': ['2025-01-05T02:00:00', '2024-12-29T02:00:00'],
    });
  });

  it('reads periods on the given time zone’s wall clock', () => {
    // 23:30 UTC and 00:30 UTC the next day are both June 11th in Vienna (UTC+2).
    const backups = [at('2025-06-10T23:30:00'), at('2025-06-11T00:30:00')];
    expect(keptBy(markBackupsForPrune(backups, { 'keep-daily': 2 }))['keep-daily']).toHaveLength(2);
    expect(keptBy(markBackupsForPrune(backups, { 'keep-daily': 2 }, 'Europe/Vienna'))).toEqual({ 'keep-daily': ['2025-06-11T00:30:00'] });
  });

  it('never removes protected backups, and they count for no option (admin guide, "Backup Protection")', () => {
    const backups = [
      at('2025-06-10T00:00:00', { protected: true }),
      at('2025-06-09T00:00:00'),
      at('2025-06-08T00:00:00', { protected: true }),
      at('2025-06-07T00:00:00'),
      at('2025-06-06T00:00:00'),
    ];
    const marks = markBackupsForPrune(backups, { 'keep-last': 2 });
    expect(marks.map((mark) => mark.mark)).toEqual(['protected', 'keep', 'protected', 'keep', 'remove']);
    expect(markBackupsForPrune(backups, { 'keep-daily': 1 }).map((mark) => mark.mark)).toEqual([
      'protected',
      'keep',
      'protected',
      'remove',
      'remove',
    ]);
  });

  it('keeps everything, protected ones still marked protected, with keep-all, no option or only zero counts', () => {
    const backups = [at('2025-06-10T00:00:00'), at('2025-06-09T00:00:00', { protected: true })];
    for (const options of [{ 'keep-all': true }, {}, { 'keep-last': 0, 'keep-all': false }]) {
      expect(markBackupsForPrune(backups, options)).toEqual([
        { id: '2025-06-10T00:00:00', ctime: backups[0]?.ctime, mark: 'keep', reason: 'keep-all' },
        { id: '2025-06-09T00:00:00', ctime: backups[1]?.ctime, mark: 'protected' },
      ]);
    }
  });

  it('rejects keep-all together with a count, naming both', () => {
    expect(() => markBackupsForPrune([], { 'keep-all': true, 'keep-daily': 7 })).toThrow('keep-all cannot be combined with keep-daily');
  });

  it('counts backups with the same creation time once for keep-last, as PVE does', () => {
    const backups = [
      at('2025-06-10T00:00:00'),
      { ...at('2025-06-10T00:00:00'), id: 'twin' },
      at('2025-06-09T00:00:00'),
      at('2025-06-08T00:00:00'),
    ];
    expect(markBackupsForPrune(backups, { 'keep-last': 2 }).map((mark) => mark.mark)).toEqual(['keep', 'remove', 'keep', 'remove']);
  });

  it('answers an empty group with an empty list and sorts an unsorted one', () => {
    expect(markBackupsForPrune([], { 'keep-last': 1 })).toEqual([]);
    const marks = markBackupsForPrune([at('2025-06-08T00:00:00'), at('2025-06-10T00:00:00'), at('2025-06-09T00:00:00')], {
      'keep-last': 1,
    });
    expect(marks.map((mark) => [mark.id, mark.mark])).toEqual([
      ['2025-06-10T00:00:00', 'keep'],
      ['2025-06-09T00:00:00', 'remove'],
      ['2025-06-08T00:00:00', 'remove'],
    ]);
  });
});
