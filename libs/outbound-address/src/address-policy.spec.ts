import { downloadRefusal, literalHost, networkList, refusedKind } from './address-policy.js';

const LOCAL_ONLY = { refusePrivate: false };
const STRICT = { refusePrivate: true };

describe('the address policy', () => {
  it.each(['127.0.0.1', '0.0.0.0', '::1', '::', '169.254.169.254', 'fe80::1', 'fd00:ec2::254', '100.100.100.200', '::ffff:127.0.0.1'])(
    'refuses the local address %s always',
    (address) => {
      expect(refusedKind(address, LOCAL_ONLY)).toBe('a loopback, link-local or cloud metadata address');
      expect(refusedKind(address, STRICT)).toBe('a loopback, link-local or cloud metadata address');
    },
  );

  it.each([
    '10.0.0.1',
    '172.16.0.1',
    '192.168.1.10',
    '100.64.0.1',
    'fd00::1',
    '224.0.0.1',
    '255.255.255.255',
    'ff02::1',
    '::ffff:192.168.1.1',
  ])('refuses %s only when private networks are refused', (address) => {
    expect(refusedKind(address, LOCAL_ONLY)).toBeNull();
    expect(refusedKind(address, STRICT)).toBe('a private network, shared or multicast address');
  });

  it.each(['203.0.113.9', '8.8.8.8', '2001:db8::1', '172.32.0.1'])('allows the public address %s', (address) => {
    expect(refusedKind(address, STRICT)).toBeNull();
  });

  it("lets the operator's networks through whatever they are", () => {
    const allowed = networkList(['192.168.10.0/24', '127.0.0.1/32', 'fd12::/16']);
    expect(refusedKind('192.168.10.7', { refusePrivate: true, allowed })).toBeNull();
    expect(refusedKind('127.0.0.1', { refusePrivate: true, allowed })).toBeNull();
    expect(refusedKind('fd12::5', { refusePrivate: true, allowed })).toBeNull();
    expect(refusedKind('192.168.11.7', { refusePrivate: true, allowed })).not.toBeNull();
    expect(refusedKind('127.0.0.2', { refusePrivate: true, allowed })).not.toBeNull();
  });

  it.each(['192.168.10.0', '192.168.10.0/33', 'example.com/24', '::/129', ''])('refuses %j as a network', (network) => {
    expect(() => networkList([network])).toThrow('is not a network in CIDR notation');
  });

  it('reads the host of a URL as an address only when it is a literal, the way the URL parser normalises it', () => {
    expect(literalHost(new URL('http://[::ffff:127.0.0.1]:8080/x'))).toBe('::ffff:7f00:1');
    expect(literalHost(new URL('http://2130706433/'))).toBe('127.0.0.1');
    expect(literalHost(new URL('https://hooks.example.com/'))).toBeNull();
  });
});

describe("downloads' refusals", () => {
  it('name the address and the escape', () => {
    const refusal = downloadRefusal(['10.1.0.0/16']);
    expect(refusal('10.2.0.1')).toBe(
      'a private network, shared or multicast address, which a download reaches only when the operator allows its network (CORRAL_DOWNLOAD_ALLOW_NETWORKS)',
    );
    expect(refusal('10.1.0.1')).toBeNull();
    expect(refusal('198.51.100.7')).toBeNull();
  });
});
