import { parseIpAddresses } from './ip-addresses.js';

describe('parseIpAddresses', () => {
  it("takes each interface's name, MAC and IPv4 and IPv6 addresses from ip -j address", () => {
    const json = JSON.stringify([
      {
        ifindex: 1,
        ifname: 'lo',
        address: '00:00:00:00:00:00',
        addr_info: [
          { family: 'inet', local: '127.0.0.1', prefixlen: 8 },
          { family: 'inet6', local: '::1', prefixlen: 128 },
        ],
      },
      {
        ifindex: 2,
        ifname: 'eth0',
        link_index: 5,
        address: 'bc:24:11:3a:5f:02',
        addr_info: [{ family: 'inet', local: '192.0.2.20', prefixlen: 24, scope: 'global' }],
      },
      { ifindex: 3, ifname: 'eth1', address: 'bc:24:11:3a:5f:03', addr_info: [] },
    ]);
    expect(parseIpAddresses(json)).toEqual([
      {
        name: 'lo',
        hwaddr: '00:00:00:00:00:00',
        addresses: [
          { family: 'inet', address: '127.0.0.1', prefix: 8 },
          { family: 'inet6', address: '::1', prefix: 128 },
        ],
      },
      { name: 'eth0', hwaddr: 'bc:24:11:3a:5f:02', addresses: [{ family: 'inet', address: '192.0.2.20', prefix: 24 }] },
      { name: 'eth1', hwaddr: 'bc:24:11:3a:5f:03', addresses: [] },
    ]);
  });

  it('refuses an answer that is not a list', () => {
    expect(() => parseIpAddresses('{}')).toThrow('did not answer a list');
  });
});
