import { localAddressReason } from './address-policy.js';

describe('the addresses a webhook reaches only with allow-local', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '0.0.0.0',
    '::1',
    '::',
    '169.254.169.254',
    '169.254.1.1',
    'fe80::1',
    'febf::1',
    'fd00:ec2::254',
    '100.100.100.200',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
  ])('refuses %s', (address) => {
    expect(localAddressReason(address)).toContain('only with allow-local=1');
  });

  it.each(['10.0.0.1', '192.168.1.10', '172.16.0.1', '203.0.113.9', '2001:db8::1', 'fd00::1', 'fec0::1', '100.100.100.201'])(
    'allows %s (private networks too)',
    (address) => {
      expect(localAddressReason(address)).toBeNull();
    },
  );
});
