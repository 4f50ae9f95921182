import { LXC_NIC, MOUNT } from './devices.js';
import {
  DNS_NAME,
  DNS_NAME_LIST,
  decimal,
  HOOKSCRIPT,
  numbered,
  flag,
  STARTUP,
  integer,
  oneOf,
  PLAIN,
  properties,
  TAGS,
  text,
  type ValueRule,
} from './value-rules.js';

/** The container config keys Corral accepts, as `QEMU_KEYS` is for VMs. */

export const LXC_OSTYPES = [
  'debian',
  'devuan',
  'ubuntu',
  'centos',
  'fedora',
  'opensuse',
  'archlinux',
  'alpine',
  'gentoo',
  'nixos',
  'unmanaged',
] as const;
export const MAX_MOUNT_POINTS = 32;
export const MAX_LXC_NICS = 32;

export const LXC_KEYS: Readonly<Record<string, ValueRule>> = {
  hostname: DNS_NAME,
  description: PLAIN('Notes.', 8192),
  tags: TAGS,
  memory: integer('Memory in MiB.', 16, 4_194_304),
  swap: integer('Swap in MiB.', 0, 4_194_304),
  cores: integer('CPU cores.', 1, 8192),
  cpulimit: decimal('CPU limit (0 = none).', 0, 8192),
  cpuunits: integer('CPU weight.', 0, 500_000),
  ostype: oneOf('Distribution inside the container.', LXC_OSTYPES),
  arch: oneOf('Architecture.', ['amd64', 'i386', 'arm64', 'armhf', 'riscv32', 'riscv64']),
  onboot: flag('Start at boot.'),
  protection: flag('Protect from removal.'),
  startup: STARTUP,
  debug: flag('Debug log level for the container start.'),
  hookscript: HOOKSCRIPT,
  unprivileged: flag('Unprivileged (user namespaces).'),
  features: properties('Features: `nesting`, `keyctl`, `fuse`, `mknod`.', {
    nesting: flag('Nesting.'),
    keyctl: flag('keyctl.'),
    fuse: flag('FUSE.'),
    mknod: flag('mknod.'),
    force_rw_sys: flag('rw /sys.'),
  }),
  nameserver: text('DNS servers.', /^[0-9A-Fa-f.: ]+$/, 'must be IP addresses separated by spaces'),
  searchdomain: text('Search domains.', DNS_NAME_LIST, 'must be DNS names separated by spaces, commas or semicolons'),
  timezone: text('Time zone.', /^[A-Za-z0-9_+/-]{1,64}$/, 'must be a time zone name such as Europe/Vienna'),
  tty: integer('Ttys.', 0, 6),
  console: flag('Console device.'),
  cmode: oneOf('Console mode.', ['shell', 'console', 'tty']),
  rootfs: MOUNT,
  ...numbered('mp', MAX_MOUNT_POINTS, MOUNT),
  ...numbered('net', MAX_LXC_NICS, LXC_NIC),
};

export const UNSUPPORTED_LXC_KEYS: Readonly<Record<string, string>> = {
  dev0: 'device passthrough is not supported by Corral',
  entrypoint: 'application containers are not supported by Corral',
};

export function isMountKey(key: string): boolean {
  return key === 'rootfs' || (/^mp\d+$/.test(key) && Number(key.slice(2)) < MAX_MOUNT_POINTS);
}
