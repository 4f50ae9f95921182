import { isQemuOf } from './qemu-process.js';

describe('isQemuOf', () => {
  it('takes no program but a qemu-system started with the pid file for its QEMU', async () => {
    expect(await isQemuOf(process.pid, '/run/corral/qemu/100.pid')).toBe(false);
    expect(await isQemuOf(2 ** 22 + 1, '/run/corral/qemu/100.pid')).toBe(false);
  });
});
