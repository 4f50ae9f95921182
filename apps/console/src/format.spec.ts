import { bytes, duration, percent } from './format';

describe('figures in words', () => {
  it('gives sizes in binary units', () => {
    expect(bytes(undefined)).toBe('-');
    expect(bytes(512)).toBe('512 B');
    expect(bytes(64 * 1024 ** 2)).toBe('64.0 MiB');
    expect(bytes(1.5 * 1024 ** 4)).toBe('1.5 TiB');
  });

  it('gives shares of a whole, never above 100, and 0 of nothing', () => {
    expect(percent(1, 4)).toBe(25);
    expect(percent(5, 4)).toBe(100);
    expect(percent(1, 0)).toBe(0);
  });

  it('gives uptimes in days, hours and minutes', () => {
    expect(duration(0)).toBe('-');
    expect(duration(61)).toBe('1m 1s');
    expect(duration(3 * 3600 + 120)).toBe('3h 2m');
    expect(duration(2 * 86400 + 3600)).toBe('2d 1h 0m');
  });
});
