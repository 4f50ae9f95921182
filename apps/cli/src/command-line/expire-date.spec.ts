import { expireEpoch } from './expire-date.js';

describe('--expire YYYY-MM-DD', () => {
  it('keeps the token valid through the whole day in UTC: it expires at the next midnight UTC', () => {
    expect(expireEpoch('2030-01-15')).toBe(Date.UTC(2030, 0, 16) / 1000);
    expect(expireEpoch('2030-12-31')).toBe(Date.UTC(2031, 0, 1) / 1000);
    expect(expireEpoch('2028-02-29')).toBe(Date.UTC(2028, 2, 1) / 1000);
  });

  it.each([
    '2030-1-15',
    '15.01.2030',
    '2030-01-15T00:00',
    '2030-02-30',
    '2029-02-29',
    '2030-13-01',
    '2030-00-10',
    '0050-01-01',
    '',
    'tomorrow',
  ])('refuses %p, naming --expire', (date) => expect(() => expireEpoch(date)).toThrow(`--expire: '${date}' is not a date YYYY-MM-DD`));
});
