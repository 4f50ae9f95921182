import { ctime } from './ha-status-entries.js';

describe('ctime', () => {
  it("shows a time as C's ctime() does in PVE's status lines, the day padded with a space", () => {
    expect(ctime(new Date(2030, 0, 2, 3, 4, 5))).toBe('Wed Jan  2 03:04:05 2030');
    expect(ctime(new Date(1993, 5, 30, 21, 49, 8))).toBe('Wed Jun 30 21:49:08 1993');
  });
});
