import { QEMU_KEYS } from './qemu-keys.js';

describe('QEMU config values', () => {
  const parse = (key: string, value: string) => () => QEMU_KEYS[key]?.parse(value);

  it.each(['x86-64-v2-AES', 'cputype=host', 'kvm64,flags=+aes', 'Skylake-Server-v4', 'custom-fast', '486'])(
    'takes the CPU model %s',
    (value) => {
      expect(parse('cpu', value)).not.toThrow();
    },
  );

  it.each(['0x10', '16', 'cputype=1e3', '-5'])('refuses the number %s as a CPU model', (value) => {
    expect(parse('cpu', value)).toThrow('must be a CPU model name');
  });

  it.each([
    ['cores', '0x10'],
    ['sockets', '+2'],
    ['memory', '1e3'],
    ['cpuunits', ' 5'],
    ['vcpus', '-1'],
  ])('takes only decimal integers: %s=%s is refused', (key, value) => {
    expect(parse(key, value)).toThrow('must be an integer');
  });
});
