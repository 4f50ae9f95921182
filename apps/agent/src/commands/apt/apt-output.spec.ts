import { aptErrors, parsePackageRecords, parsePolicyOrigins, parseUpgradableList } from './apt-output.js';

// Recorded on Debian 12 (bookworm) hosts; apt prints "Listing..." first.
const APT_LIST = `Listing...
bash/oldstable 5.2.15-2+b13 amd64 [upgradable from: 5.2.15-2+b8]
ca-certificates/oldstable-security 20250419~deb12u2 all [upgradable from: 20230311+deb12u1]
krb5-locales/oldstable,oldstable-security 1.20.1-2+deb12u5 all [upgradable from: 1.20.1-2+deb12u3]
libc6/oldstable 2.36-9+deb12u13 i386 [upgradable from: 2.36-9+deb12u10]
pve-manager/bookworm 8.4.14 all [upgradable from: 8.4.1]
`;

const POLICY = `Package files:
 100 /var/lib/dpkg/status
     release a=now
 500 http://download.proxmox.com/debian/pve bookworm/pve-no-subscription amd64 Packages
     release o=Proxmox,a=stable,n=bookworm,l=Proxmox Debian Repository,c=pve-no-subscription,b=amd64
     origin download.proxmox.com
 500 http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
     release v=12,o=Debian,a=oldstable-security,n=bookworm-security,l=Debian-Security,c=main,b=amd64
     origin deb.debian.org
 500 http://deb.debian.org/debian bookworm/main amd64 Packages
     release v=12.15,o=Debian,a=oldstable,n=bookworm,l=Debian,c=main,b=amd64
     origin deb.debian.org
Pinned packages:
`;

const SHOW = `Package: bash
Source: bash (5.2.15-2)
Version: 5.2.15-2+b13
Essential: yes
Architecture: amd64
Description-en: GNU Bourne Again SHell
 Bash is an sh-compatible command language interpreter that executes
 commands read from the standard input or from a file.
 .
 The Programmable Completion Code is now found in the bash-completion package.
Description-md5: 3522aa7b4374048d6450e348a5bb45d9
Section: shells
Priority: required

Package: krb5-locales
Version: 1.20.1-2+deb12u5
Architecture: all
Description: internationalization support for MIT Kerberos
Description-md5: 21d19741f2f6e9424950c8f1a6d5cab0
Section: localization
Priority: standard

`;

describe("apt's output", () => {
  it('reads apt list --upgradable, every suite of a line included', () => {
    expect(parseUpgradableList(APT_LIST)).toEqual([
      { package: 'bash', suites: ['oldstable'], version: '5.2.15-2+b13', arch: 'amd64', oldVersion: '5.2.15-2+b8' },
      {
        package: 'ca-certificates',
        suites: ['oldstable-security'],
        version: '20250419~deb12u2',
        arch: 'all',
        oldVersion: '20230311+deb12u1',
      },
      {
        package: 'krb5-locales',
        suites: ['oldstable', 'oldstable-security'],
        version: '1.20.1-2+deb12u5',
        arch: 'all',
        oldVersion: '1.20.1-2+deb12u3',
      },
      { package: 'libc6', suites: ['oldstable'], version: '2.36-9+deb12u13', arch: 'i386', oldVersion: '2.36-9+deb12u10' },
      { package: 'pve-manager', suites: ['bookworm'], version: '8.4.14', arch: 'all', oldVersion: '8.4.1' },
    ]);
    expect(parseUpgradableList('Listing...\n')).toEqual([]);
  });

  it("maps each archive and codename of apt-cache policy to its release's origin, first one winning", () => {
    const origins = parsePolicyOrigins(POLICY);
    expect(Object.fromEntries(origins)).toEqual({
      stable: 'Proxmox',
      bookworm: 'Proxmox',
      'oldstable-security': 'Debian',
      'bookworm-security': 'Debian',
      oldstable: 'Debian',
    });
  });

  it('reads package records with the short and, where the index has it, the long description', () => {
    expect(parsePackageRecords(SHOW)).toEqual([
      {
        package: 'bash',
        version: '5.2.15-2+b13',
        arch: 'amd64',
        title: 'GNU Bourne Again SHell',
        description:
          'Bash is an sh-compatible command language interpreter that executes\ncommands read from the standard input or from a file.\n\nThe Programmable Completion Code is now found in the bash-completion package.',
        section: 'shells',
        priority: 'required',
      },
      {
        package: 'krb5-locales',
        version: '1.20.1-2+deb12u5',
        arch: 'all',
        title: 'internationalization support for MIT Kerberos',
        section: 'localization',
        priority: 'standard',
      },
    ]);
  });

  it("keeps only apt's error lines", () => {
    expect(aptErrors("W: a warning\nE: Version '1.0-1' for 'bash' was not found\nE: No packages found\n")).toEqual([
      "Version '1.0-1' for 'bash' was not found",
      'No packages found',
    ]);
  });
});
