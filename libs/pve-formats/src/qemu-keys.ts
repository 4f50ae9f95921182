import { DISK, EFIDISK, QEMU_NIC, TPMSTATE } from './devices.js';
import { QEMU_HARDWARE_KEYS } from './qemu-hardware-keys.js';
import { CLOUDINIT_PASSWORD } from './cloudinit-password.js';
import {
  decimal,
  numbered,
  DNS_NAME,
  HOOKSCRIPT,
  SNIPPET_VOLUME,
  STARTUP,
  flag,
  integer,
  IPV4,
  IPV4_CIDR,
  IPV6,
  IPV6_SETTING,
  LINE,
  oneOf,
  PLAIN,
  properties,
  TAGS,
  text,
  type ValueRule,
} from './value-rules.js';

/**
 * The VM config keys Corral accepts, each with its rule. Numbered keys are listed
 * one by one (`scsi0`..`scsi30`) so the parameter schema stays strict and the OpenAPI document
 * names them. Keys PVE has and Corral does not support are refused by name (`UNSUPPORTED_QEMU_KEYS`).
 */

export const QEMU_OSTYPES = [
  'other',
  'wxp',
  'w2k',
  'w2k3',
  'w2k8',
  'wvista',
  'win7',
  'win8',
  'win10',
  'win11',
  'l24',
  'l26',
  'solaris',
] as const;

export const DISK_BUSES = { ide: 4, sata: 6, scsi: 31, virtio: 16 } as const;
export const MAX_NICS = 32;

/** A CPU model's name: QEMU's and PVE's models and PVE's `custom-` ones begin with a letter, but `486`; a number (`16`, `0x10`) is none. */
const CPU_MODEL = /^(?:486|[A-Za-z][A-Za-z0-9._-]{0,63})$/;

/** PVE's VNC keyboard layouts. */
const KEYBOARDS = [
  'de',
  'de-ch',
  'da',
  'en-gb',
  'en-us',
  'es',
  'fi',
  'fr',
  'fr-be',
  'fr-ca',
  'fr-ch',
  'hu',
  'is',
  'it',
  'ja',
  'lt',
  'mk',
  'nl',
  'no',
  'pl',
  'pt',
  'pt-br',
  'sv',
  'sl',
  'tr',
];

const SNIPPET = text('A snippet volume `<storage>:snippets/<file>`.', SNIPPET_VOLUME, 'must be a snippet volume <storage>:snippets/<file>');
/** Keys only root@pam may set, as in PVE: they run what they name on the host. */
export const ROOT_ONLY_KEYS: ReadonlySet<string> = new Set(['args', 'hookscript']);

const MEMORY = {
  description: 'Memory in MiB (`[current=]<MiB>`): a property string, as PVE 8.1 made it.',
  type: 'string',
  parse(value: string) {
    const current = /^(?:current=)?(\d+)$/.exec(value)?.[1];
    return integer('', 16, 4_194_304).parse(current ?? value);
  },
} satisfies ValueRule;

const CPU = properties(
  'The CPU model: `[cputype=]<model>`, e.g. x86-64-v2-AES, host, kvm64.',
  {
    cputype: text('CPU model.', CPU_MODEL, 'must be a CPU model name'),
    flags: text('CPU flags.', /^[+-][A-Za-z0-9_-]+(?:;[+-][A-Za-z0-9_-]+)*$/, 'must be flags such as +aes;-pcid'),
    hidden: flag('Hide KVM.'),
  },
  'cputype',
);

const BOOT = text(
  'Boot order: `order=<device>[;<device>...]`.',
  /^(?:order=[a-z]+\d+(?:;[a-z]+\d+)*|[acdn]{1,4})$/,
  'must be order=<device>;<device>... (e.g. order=scsi0;net0)',
);

const IPCONFIG = properties('Cloud-init addresses: `ip=dhcp|<cidr>,gw=<ip>,ip6=...,gw6=...`.', {
  ip: { description: 'IPv4.', type: 'string', parse: (value) => (value === 'dhcp' ? value : IPV4_CIDR.parse(value)) },
  gw: IPV4,
  ip6: IPV6_SETTING,
  gw6: IPV6,
});

export const QEMU_KEYS: Readonly<Record<string, ValueRule>> = {
  name: DNS_NAME,
  description: PLAIN('Notes.', 8192),
  tags: TAGS,
  memory: MEMORY,
  balloon: integer('Ballooning target in MiB (0 disables the balloon device).', 0, 4_194_304),
  shares: integer('Memory shares for auto-ballooning.', 0, 50_000),
  cores: integer('Cores per socket.', 1, 1024),
  sockets: integer('CPU sockets.', 1, 16),
  vcpus: integer('Hot-plugged vCPUs.', 1, 16_384),
  cpu: CPU,
  cpulimit: decimal('CPU limit (0 = none).', 0, 128),
  cpuunits: integer('CPU weight.', 1, 262_144),
  numa: flag('NUMA.'),
  ostype: oneOf('Guest OS type.', QEMU_OSTYPES),
  machine: text(
    'Machine type.',
    /^(?:pc|q35|virt)(?:-[a-z0-9.+-]+)?(?:,viommu=(?:intel|virtio))?$/,
    'must be a machine type such as q35 or pc-i440fx-8.1',
  ),
  bios: oneOf('Firmware.', ['seabios', 'ovmf']),
  acpi: flag('ACPI.'),
  kvm: flag('Hardware virtualization.'),
  tablet: flag('USB tablet.'),
  localtime: flag('Real-time clock in local time.'),
  agent: properties(
    'QEMU guest agent: `[enabled=]0|1`.',
    { enabled: flag('Enabled.'), fstrim_cloned_disks: flag('fstrim after clone.'), type: oneOf('Transport.', ['virtio', 'isa']) },
    'enabled',
  ),
  vga: properties(
    'Display: `[type=]<type>`.',
    {
      type: oneOf('Type.', ['std', 'virtio', 'qxl', 'cirrus', 'vmware', 'none', 'serial0', 'serial1']),
      memory: integer('VRAM MiB.', 4, 512),
    },
    'type',
  ),
  scsihw: oneOf('SCSI controller.', ['lsi', 'lsi53c810', 'virtio-scsi-pci', 'virtio-scsi-single', 'megasas', 'pvscsi']),
  boot: BOOT,
  bootdisk: text('Boot disk (deprecated by `boot`).', /^(?:ide|sata|scsi|virtio)\d+$/, 'must be a disk key such as scsi0'),
  onboot: flag('Start at boot.'),
  protection: flag('Protect from removal.'),
  startup: STARTUP,
  hotplug: text(
    'Hot-plug: a list of network, disk, cpu, memory, usb, or 0/1.',
    /^(?:0|1|(?:network|disk|cpu|memory|usb|cloudinit)(?:,(?:network|disk|cpu|memory|usb|cloudinit))*)$/,
    'must be 0, 1 or a list of network, disk, cpu, memory, usb',
  ),
  smbios1: text(
    'SMBIOS type 1 fields.',
    /^(?:(?:uuid|serial|manufacturer|product|version|sku|family|base64)=[^,\x00-\x1f]*(?:,|$))+$/,
    'must be key=value items of uuid, serial, manufacturer, product, version, sku, family',
  ),
  vmgenid: text(
    'VM generation id: a UUID, or 1 to generate one.',
    /^(?:[01]|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/,
    'must be a UUID, 0 or 1',
  ),
  ciuser: text('Cloud-init user.', /^[a-z_][a-z0-9_-]{0,31}$/, 'must be a user name'),
  cipassword: CLOUDINIT_PASSWORD,
  citype: oneOf('Cloud-init format.', ['configdrive2', 'nocloud', 'opennebula']),
  sshkeys: text('Cloud-init SSH public keys, URL-encoded.', LINE, 'must be URL-encoded keys', 65_536),
  nameserver: text('Cloud-init DNS servers.', /^[0-9A-Fa-f.: ]+$/, 'must be IP addresses separated by spaces'),
  searchdomain: PLAIN('Cloud-init search domains.'),
  ...numbered('ipconfig', MAX_NICS, IPCONFIG),
  ...numbered('net', MAX_NICS, QEMU_NIC),
  ...Object.assign({}, ...Object.entries(DISK_BUSES).map(([bus, count]) => numbered(bus, count, DISK))),
  efidisk0: EFIDISK,
  tpmstate0: TPMSTATE,
  keyboard: oneOf('Keyboard layout of the VNC display.', KEYBOARDS),
  affinity: text('Host CPUs that run the VM: `0,5,8-11`.', /^\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*$/, 'must be host CPU ids such as 0,5,8-11'),
  'allow-ksm': flag('Allow KSM to merge its memory pages.'),
  arch: oneOf('Virtual CPU architecture.', ['x86_64', 'aarch64']),
  autostart: flag('Restart after a crash (PVE ignores it too).'),
  freeze: flag('Start with the CPU stopped (resume with the monitor command `c`).'),
  reboot: flag('0: the VM stops instead of rebooting.'),
  tdf: flag('Time drift fix.'),
  startdate: text(
    'Initial date of the real-time clock: `now`, `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SS`.',
    /^(?:now|\d{4}-\d{1,2}-\d{1,2}(?:T\d{1,2}:\d{1,2}:\d{1,2})?)$/,
    'must be now, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS',
  ),
  smp: integer('CPUs (PVE keeps it for old configs: use sockets and cores).', 1, 16_384),
  hugepages: oneOf('Huge pages for the memory.', ['any', '2', '1024']),
  keephugepages: flag('Keep the huge pages after the VM stops.'),
  migrate_downtime: decimal('Longest pause in seconds at the end of a live migration.', 0, 1_000_000),
  migrate_speed: integer('Migration speed limit in MB/s (0 = none).', 0, 1_000_000),
  vmstatestorage: text('The storage of saved VM states.', /^[A-Za-z][A-Za-z0-9_.-]*$/, 'must be a storage id'),
  ciupgrade: flag('Cloud-init: upgrade packages on first boot.'),
  cicustom: properties('Cloud-init: own files for `user`, `network`, `meta`, `vendor` (snippet volumes).', {
    user: SNIPPET,
    network: SNIPPET,
    meta: SNIPPET,
    vendor: SNIPPET,
  }),
  args: text('Extra arguments for QEMU (root@pam only, as in PVE).', LINE, 'must be one line', 4096),
  hookscript: HOOKSCRIPT,
  ...QEMU_HARDWARE_KEYS,
  ...numbered(
    'serial',
    4,
    text('Serial port: `socket` or a host device.', /^(?:socket|\/dev\/[A-Za-z0-9_/-]+)$/, 'must be socket or /dev/<device>'),
  ),
};

/** PVE keys Corral refuses with a reason rather than as unknown. */
export const UNSUPPORTED_QEMU_KEYS: Readonly<Record<string, string>> = {};

/** Is `key` a disk key (`scsi0`, `virtio1`, `ide2`, `sata3`)? */
export function isDiskKey(key: string): boolean {
  const match = /^(ide|sata|scsi|virtio)(\d+)$/.exec(key);
  return match !== null && Number(match[2]) < DISK_BUSES[match[1] as keyof typeof DISK_BUSES];
}

/** Is `key` a key of a VM's volume: a disk, the EFI vars disk (`efidisk0`) or the TPM state (`tpmstate0`)? */
export function isQemuVolumeKey(key: string): boolean {
  return isDiskKey(key) || key === 'efidisk0' || key === 'tpmstate0';
}

export function isNicKey(key: string): boolean {
  return /^net\d+$/.test(key) && Number(key.slice(3)) < MAX_NICS;
}
