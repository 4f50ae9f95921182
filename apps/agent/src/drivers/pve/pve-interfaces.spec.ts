import { pveInterfaces } from './pve-interfaces.js';

describe('pveInterfaces', () => {
  it("reads PVE's interfaces answer back into the protocol's shape", () => {
    const json = JSON.stringify([
      {
        name: 'lo',
        hwaddr: '00:00:00:00:00:00',
        'hardware-address': '00:00:00:00:00:00',
        inet: '127.0.0.1/8',
        'ip-addresses': [{ 'ip-address': '127.0.0.1', 'ip-address-type': 'inet', prefix: 8 }],
      },
      {
        name: 'eth0',
        hwaddr: 'bc:24:11:3a:5f:02',
        'ip-addresses': [{ 'ip-address': 'fe80::1', 'ip-address-type': 'inet6', prefix: '64' }],
      },
    ]);
    expect(pveInterfaces(json)).toEqual([
      { name: 'lo', hwaddr: '00:00:00:00:00:00', addresses: [{ family: 'inet', address: '127.0.0.1', prefix: 8 }] },
      { name: 'eth0', hwaddr: 'bc:24:11:3a:5f:02', addresses: [{ family: 'inet6', address: 'fe80::1', prefix: 64 }] },
    ]);
  });
});
