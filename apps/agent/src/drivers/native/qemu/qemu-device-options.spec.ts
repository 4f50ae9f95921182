import { deviceOptions, splitArgs } from './qemu-device-options.js';

describe('deviceOptions', () => {
  it("gives QEMU PVE's keyboard, watchdog, random number generator, clock and reboot arguments", () => {
    const options = deviceOptions(100, {
      keyboard: 'de',
      watchdog: 'ib700,action=poweroff',
      rng0: '/dev/urandom,max_bytes=1024,period=1000',
      startdate: '2020-01-01',
      tdf: '1',
      reboot: '0',
    });
    expect(options.args).toEqual([
      ...['-k', 'de', '-device', 'ib700', '-action', 'watchdog=poweroff'],
      ...['-object', 'rng-random,filename=/dev/urandom,id=rng0', '-device', 'virtio-rng-pci,rng=rng0,max-bytes=1024,period=1000'],
      ...['-rtc', 'base=2020-01-01,driftfix=slew', '-no-reboot'],
    ]);
    expect(options.frozen).toBe(false);
  });

  it('runs the clock in local time when asked and no start date is given, and keeps the CPU stopped with freeze', () => {
    expect(deviceOptions(100, { localtime: '1', startdate: 'now', freeze: '1', watchdog: 'i6300esb' })).toEqual({
      args: ['-device', 'i6300esb', '-action', 'watchdog=reset', '-rtc', 'base=localtime'],
      notes: [],
      frozen: true,
    });
  });

  it("appends root's args as words, never through a shell", () => {
    expect(deviceOptions(100, { args: `-fw_cfg name=opt/x,string='a b' -no-hpet` }).args).toEqual([
      '-fw_cfg',
      'name=opt/x,string=a b',
      '-no-hpet',
    ]);
  });

  it('notes what it leaves to QEMU, and refuses what only the pve driver gives, naming the key', () => {
    expect(deviceOptions(100, { hugepages: '2', numa0: 'cpus=0-1' }).notes).toEqual([
      "hugepages: not applied (the native driver leaves it to QEMU's defaults)",
      "numa0: not applied (the native driver leaves it to QEMU's defaults)",
    ]);
    expect(() => deviceOptions(100, { hostpci0: '0000:01:00.0' })).toThrow(
      'VM 100 cannot start on the native driver with hostpci0: host PCI devices are passed through by the pve driver only',
    );
    expect(() => deviceOptions(100, { hookscript: 'local:snippets/hook.sh' })).toThrow('does not run hook scripts yet');
  });
});

describe('splitArgs', () => {
  it('splits on white space, keeping quoted words and escaped characters', () => {
    expect(splitArgs(` a  "b c" 'd "e"' f\\ g "" `)).toEqual(['a', 'b c', 'd "e"', 'f g', '']);
  });

  it('refuses an unclosed quote', () => {
    expect(() => splitArgs('-a "b')).toThrow('unclosed " quote');
  });
});
