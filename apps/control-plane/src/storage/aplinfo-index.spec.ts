import { parseAplinfo } from './aplinfo-index.js';

const INDEX = `Package: pve-web-news
Version: 1.0
Type: lxc
Description: news
 something new

Package: debian-13-standard
Version: 13.1-2
Type: lxc
OS: debian-13
Section: system
Maintainer: Proxmox Support Team <support@proxmox.com>
Architecture: amd64
Location: system/debian-13-standard_13.1-2_amd64.tar.zst
md5sum: 0123456789abcdef0123456789abcdef
sha512sum: ${'ab'.repeat(64)}
Infopage: https://pve.proxmox.com/wiki/Linux_Container#pct_supported_distributions
Description: Debian 13 (standard)
 A small Debian Trixie system including all standard packages.
 Second line.

Package: no-infopage
Version: 1.0
Type: lxc
OS: debian-12
Location: system/x.tar.zst

Package: odd-type
Version: 1.0
Type: qemu
OS: debian-12
Infopage: https://example.com
Location: system/y.tar.zst

Package: turnkey-core
Version: 18.0-1
Type: lxc
OS: debian-12
Section: turnkeylinux
Infopage: https://www.turnkeylinux.org/core
Location: https://mirror.example.com/turnkey/debian-12-turnkey-core_18.0-1_amd64.tar.gz
Description: TurnKey Core
`;

describe("PVE's appliance index", () => {
  it('reads complete records with lower-case keys, their template and absolute location, as PVE lists them', () => {
    const appliances = parseAplinfo(INDEX, 'http://download.example.com/images/aplinfo-pve-9.dat');
    expect(appliances.map((a) => a.package)).toEqual(['pve-web-news', 'debian-13-standard', 'turnkey-core']);
    expect(appliances[1]).toEqual({
      package: 'debian-13-standard',
      version: '13.1-2',
      type: 'lxc',
      os: 'debian-13',
      section: 'system',
      maintainer: 'Proxmox Support Team <support@proxmox.com>',
      architecture: 'amd64',
      location: 'http://download.example.com/images/system/debian-13-standard_13.1-2_amd64.tar.zst',
      md5sum: '0123456789abcdef0123456789abcdef',
      sha512sum: 'ab'.repeat(64),
      infopage: 'https://pve.proxmox.com/wiki/Linux_Container#pct_supported_distributions',
      headline: 'Debian 13 (standard)',
      description: 'A small Debian Trixie system including all standard packages. Second line.',
      source: 'http://download.example.com/images',
      template: 'debian-13-standard_13.1-2_amd64.tar.zst',
    });
    expect(appliances[2]).toMatchObject({
      template: 'debian-12-turnkey-core_18.0-1_amd64.tar.gz',
      location: 'https://mirror.example.com/turnkey/debian-12-turnkey-core_18.0-1_amd64.tar.gz',
      headline: 'TurnKey Core',
      description: '',
    });
  });

  it('names a record without a location as PVE does', () => {
    const [appliance] = parseAplinfo(
      'Package: debian-12-minimal\nVersion: 12.0-1\nType: lxc\nOS: debian-12\nInfopage: https://example.com\nArchitecture: amd64\n',
      'http://x.example/images/index.dat',
    );
    expect(appliance).toMatchObject({
      template: 'debian-12-minimal_12.0-1_amd64.tar.gz',
      section: 'unknown',
      location: 'http://x.example/images/unknown/debian-12-minimal_12.0-1_amd64.tar.gz',
    });
  });
});
