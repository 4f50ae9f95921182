import { parseSize } from './size.js';
import {
  BRIDGE,
  flag,
  integer,
  IPV4,
  IPV4_CIDR,
  IPV6,
  IPV6_SETTING,
  itemValue,
  MAC,
  oneOf,
  parseItems,
  PLAIN,
  text,
  ValueError,
  VLAN,
  type ValueRule,
} from './value-rules.js';

/*
 * The device values of a guest's config: disks and container volumes (`scsi0`, `rootfs`, `mp0`) and
 * network cards (`net0`). Parsing is syntax only; the guest service resolves storages, allocates
 * new volumes and fills in MAC addresses.
 */

const STORAGE_ID = /^[A-Za-z][A-Za-z0-9_.-]*$/;
const VOLUME_NAME = /^[A-Za-z0-9_.\/-]+$/;

/** Where a volume value points: a new volume of `size` bytes on `storage`, an existing volume, or nothing. */
export type VolumeSource =
  | { readonly kind: 'new'; readonly storage: string; readonly size: number }
  | { readonly kind: 'volume'; readonly storage: string; readonly volname: string }
  | { readonly kind: 'none' };

export interface VolumeValue {
  readonly source: VolumeSource;
  /** The other items, checked, in the order given (`size`, `format`, `media`, `mp`, ...). */
  readonly options: ReadonlyMap<string, string>;
}

const DISK_OPTIONS: Record<string, ValueRule> = {
  size: { description: 'Size.', type: 'string', parse: sizeText },
  format: oneOf('Image format.', ['qcow2', 'raw']),
  media: oneOf('Drive media.', ['disk', 'cdrom']),
  cache: oneOf('Cache mode.', ['none', 'writethrough', 'writeback', 'unsafe', 'directsync']),
  discard: oneOf('Discard.', ['on', 'ignore']),
  ssd: flag('Present as an SSD.'),
  iothread: flag('Own I/O thread.'),
  backup: flag('Include in backups.'),
  replicate: flag('Include in replication.'),
  ro: flag('Read-only.'),
  serial: text('Drive serial.', /^[A-Za-z0-9_-]{1,20}$/, 'must be 1 to 20 letters, digits, _ or -'),
  aio: oneOf('Asynchronous I/O.', ['native', 'threads', 'io_uring']),
};

const MOUNT_OPTIONS: Record<string, ValueRule> = {
  size: { description: 'Size.', type: 'string', parse: sizeText },
  // As PVE's verify_lxc_mp_string: no `.` or `..` component, which would leave the container's root.
  mp: text(
    'Mount point inside the container.',
    /^(?!.*\/\.\.?(?:\/|$))\/[^\x00-\x1f\x7f,]*$/,
    'must be an absolute path inside the container, without . or .. components',
  ),
  acl: flag('POSIX ACLs.'),
  quota: flag('User quotas.'),
  ro: flag('Read-only.'),
  backup: flag('Include in backups.'),
  replicate: flag('Include in replication.'),
  shared: flag('Shared between nodes.'),
  mountoptions: text('Mount options.', /^[a-z]+(?:;[a-z]+)*$/, 'must be mount options separated by ;'),
};

function sizeText(value: string): string {
  if (parseSize(value) === null) throw new ValueError('must be a size such as 32G, 512M or 4096 (bytes)');
  return value;
}

/** The smallest new disk (`<storage>:0.001`); an EFI vars or TPM state volume takes its own size whatever is given. */
const MIN_NEW_DISK = 1024 * 1024;

function volumeRule(
  description: string,
  options: Record<string, ValueRule>,
  allowNone: boolean,
  minSize: number,
  check: (volume: VolumeValue) => void = () => undefined,
): ValueRule {
  return {
    description,
    type: 'string',
    parse(value) {
      const volume = parseVolume(value, options, allowNone, minSize);
      check(volume);
      return formatVolume(volume);
    },
  };
}

/** A QEMU disk (`scsi0`, `virtio1`, `ide2`, `sata0`): `<storage>:<GiB>`, a volume id, `none` or `cdrom`, then options. */
export const DISK = volumeRule(
  'A disk: `<storage>:<size in GiB>` for a new volume, a volume id, or `none`; options `size`, `format`, `media`, `cache`, ...',
  DISK_OPTIONS,
  true,
  MIN_NEW_DISK,
);
/** A container root file system or mount point (`rootfs`, `mp0`). */
export const MOUNT = volumeRule(
  'A volume: `<storage>:<size in GiB>` for a new volume, or a volume id; options `size`, `mp` (mount points), `acl`, `ro`, ...',
  MOUNT_OPTIONS,
  false,
  MIN_NEW_DISK,
);

/** PVE's EFI vars disk (`efidisk0`): `<storage>:<GiB>` (the size is the OVMF vars template's, whatever is given) or a volume id. */
const EFIDISK_OPTIONS: Record<string, ValueRule> = {
  size: DISK_OPTIONS['size'] as ValueRule,
  format: DISK_OPTIONS['format'] as ValueRule,
  efitype: oneOf('Size and type of the OVMF vars (2m unless given; 4m for Secure Boot).', ['2m', '4m']),
  'pre-enrolled-keys': flag(
    "Start from the vars template with the distribution's and Microsoft's keys enrolled (efitype=4m): Secure Boot on.",
  ),
  'ms-cert': oneOf('Which Microsoft UEFI certificates are enrolled (a marker).', ['2011', '2023', '2023w', '2023k']),
};

/** PVE's TPM state disk (`tpmstate0`): `<storage>:<GiB>` (always a 4 MiB raw image) or a volume id. */
const TPMSTATE_OPTIONS: Record<string, ValueRule> = {
  size: DISK_OPTIONS['size'] as ValueRule,
  format: oneOf('Image format (a new volume is always raw).', ['raw', 'qcow2']),
  version: oneOf('TPM interface version (v1.2 unless given).', ['v1.2', 'v2.0']),
};

export const EFIDISK = volumeRule(
  "The EFI vars disk: `<storage>:<GiB>` for a new volume (its size is the OVMF vars template's), or a volume id; options `efitype` (2m, 4m), `pre-enrolled-keys`, `format`, `ms-cert`.",
  EFIDISK_OPTIONS,
  false,
  1,
  (volume) => {
    if (volume.options.get('pre-enrolled-keys') === '1' && volume.options.get('efitype') !== '4m')
      throw new ValueError('pre-enrolled-keys: needs efitype=4m (the 2m vars template has no keys)');
  },
);
export const TPMSTATE = volumeRule(
  'The TPM state disk: `<storage>:<GiB>` for a new volume (always a 4 MiB raw image), or a volume id; option `version` (v1.2, v2.0).',
  TPMSTATE_OPTIONS,
  false,
  1,
);

/** Every item a VM volume's stored value may have: disks', EFI vars' and TPM state's (each key's own rule checked it when it was written). */
const STORED_QEMU_VOLUME_OPTIONS = {
  ...DISK_OPTIONS,
  ...EFIDISK_OPTIONS,
  ...TPMSTATE_OPTIONS,
  format: oneOf('Image format.', ['qcow2', 'raw']),
};

/** A VM volume's value as stored (a disk, `efidisk0`, `tpmstate0`, `unusedN`). */
export function parseDisk(value: string): VolumeValue {
  return parseVolume(value, STORED_QEMU_VOLUME_OPTIONS, true, 1);
}

export function parseMount(value: string): VolumeValue {
  return parseVolume(value, MOUNT_OPTIONS, false, MIN_NEW_DISK);
}

function parseVolume(value: string, rules: Record<string, ValueRule>, allowNone: boolean, minSize: number): VolumeValue {
  const items = parseItems(value, { defaultKey: 'file' });
  const file = items.get('file') ?? items.get('volume');
  if (file === undefined) throw new ValueError('must start with <storage>:<size> or a volume id');
  items.delete('file');
  items.delete('volume');
  const options = new Map(
    [...items].map(([key, item]) => {
      const rule = rules[key];
      if (!rule) throw new ValueError(`has an unknown item '${key}' (known: ${Object.keys(rules).join(', ')})`);
      return [key, itemValue(key, item, rule)] as const;
    }),
  );
  if (file === 'none' || file === 'cdrom') {
    if (!allowNone) throw new ValueError('must be <storage>:<size> or a volume id');
    if (file === 'cdrom') options.set('media', 'cdrom');
    return { source: { kind: 'none' }, options };
  }
  const colon = file.indexOf(':');
  const storage = file.slice(0, colon);
  const rest = file.slice(colon + 1);
  if (colon < 1 || !STORAGE_ID.test(storage)) throw new ValueError(`'${file}' must be <storage>:<size in GiB> or <storage>:<volume>`);
  if (/^\d+(?:\.\d+)?$/.test(rest)) {
    const size = parseSize(rest, 'G');
    if (size === null || size < minSize)
      throw new ValueError(minSize === 1 ? `size '${rest}' must be more than 0` : `size '${rest}' must be at least 0.001 GiB`);
    return { source: { kind: 'new', storage, size }, options };
  }
  if (!VOLUME_NAME.test(rest) || rest.split('/').some((part) => part === '..' || part === '.'))
    throw new ValueError(`volume '${file}' is not a volume id`);
  return { source: { kind: 'volume', storage, volname: rest }, options };
}

export function formatVolume(volume: VolumeValue): string {
  const { source } = volume;
  const file =
    source.kind === 'none'
      ? 'none'
      : source.kind === 'new'
        ? `${source.storage}:${source.size / 1024 ** 3}`
        : `${source.storage}:${source.volname}`;
  return [file, ...[...volume.options].map(([key, value]) => `${key}=${value}`)].join(',');
}

/** QEMU's emulated network cards. */
export const NIC_MODELS = ['virtio', 'e1000', 'e1000e', 'rtl8139', 'vmxnet3'] as const;
export type NicModel = (typeof NIC_MODELS)[number];

export interface QemuNic {
  readonly model: NicModel;
  /** Absent until the service generates one. */
  readonly mac: string | undefined;
  readonly options: ReadonlyMap<string, string>;
}

const QEMU_NIC_OPTIONS: Record<string, ValueRule> = {
  bridge: BRIDGE,
  firewall: flag('Use the firewall.'),
  tag: VLAN,
  rate: PLAIN('Rate limit in MB/s.', 16),
  link_down: flag('Unplugged.'),
  mtu: integer('MTU.', 1, 65520),
  queues: integer('Queues.', 0, 64),
  trunks: text('VLAN trunks.', /^\d+(?:-\d+)?(?:;\d+(?:-\d+)?)*$/, 'must be VLAN ids or ranges separated by ;'),
};

/** PVE's `net[n]` of a VM: `<model>[=<MAC>]` or `model=<model>,macaddr=<MAC>`, then `bridge`, `tag`, `firewall`, ... */
export function parseQemuNic(value: string): QemuNic {
  // A bare model (`virtio,bridge=vmbr0`) is the model with no MAC yet.
  const items = parseItems(value, { defaultKey: 'model' });
  let model: string | undefined = items.get('model');
  let mac = items.get('macaddr');
  items.delete('model');
  items.delete('macaddr');
  for (const candidate of NIC_MODELS) {
    if (!items.has(candidate)) continue;
    if (model !== undefined) throw new ValueError('names more than one model');
    model = candidate;
    const given = items.get(candidate);
    if (given !== undefined && given !== '') mac = given;
    items.delete(candidate);
  }
  if (model === undefined || !(NIC_MODELS as readonly string[]).includes(model))
    throw new ValueError(`must start with a model (${NIC_MODELS.join(', ')}), e.g. virtio,bridge=vmbr0`);
  const options = new Map(
    [...items].map(([key, item]) => {
      const rule = QEMU_NIC_OPTIONS[key];
      if (!rule) throw new ValueError(`has an unknown item '${key}' (known: model, macaddr, ${Object.keys(QEMU_NIC_OPTIONS).join(', ')})`);
      return [key, itemValue(key, item, rule)] as const;
    }),
  );
  return { model: model as NicModel, mac: mac === undefined ? undefined : itemValue('macaddr', mac, MAC).toUpperCase(), options };
}

/** PVE's normal form, which Ansible's MAC regex needs: `virtio=BC:24:11:0A:1B:2C,bridge=vmbr0`. */
export function formatQemuNic(nic: QemuNic): string {
  return [nic.mac === undefined ? nic.model : `${nic.model}=${nic.mac}`, ...[...nic.options].map(([key, value]) => `${key}=${value}`)].join(
    ',',
  );
}

export const QEMU_NIC: ValueRule = {
  description:
    'A network card: `<model>[=<MAC>]` (virtio, e1000, e1000e, rtl8139, vmxnet3), then `bridge`, `tag`, `firewall`, `rate`, `link_down`, `mtu`, `queues`.',
  type: 'string',
  parse: (value) => formatQemuNic(parseQemuNic(value)),
};

/**
 * PVE 9.1's `host-managed`: the host, not the container, configures the interface's addresses.
 * Corral leaves them to the container, so only `0` (PVE's default, which bpg's provider sends) is taken.
 */
const HOST_MANAGED: ValueRule = {
  description: 'Addresses configured by the host instead of the container: only 0, Corral leaves them to the container.',
  type: 'boolean',
  parse(value) {
    if (flag('').parse(value) === '1')
      throw new ValueError('=1 (addresses configured by the host) is not built in Corral: the container configures its own');
    return '0';
  },
};

const LXC_NIC_OPTIONS: Record<string, ValueRule> = {
  name: text('Interface name inside the container.', /^[A-Za-z][A-Za-z0-9_-]{0,14}$/, 'must be an interface name'),
  bridge: BRIDGE,
  hwaddr: MAC,
  ip: {
    description: '`dhcp`, `manual` or an IPv4 address with its prefix length.',
    type: 'string',
    parse: (value) => (value === 'dhcp' || value === 'manual' ? value : IPV4_CIDR.parse(value)),
  },
  gw: IPV4,
  ip6: IPV6_SETTING,
  gw6: IPV6,
  tag: VLAN,
  firewall: flag('Use the firewall.'),
  mtu: integer('MTU.', 576, 65535),
  rate: PLAIN('Rate limit in MB/s.', 16),
  link_down: flag('Unplugged.'),
  type: oneOf('Interface type.', ['veth']),
  'host-managed': HOST_MANAGED,
};

export interface LxcNic {
  readonly options: ReadonlyMap<string, string>;
}

/** PVE's `net[n]` of a container: `name=eth0,bridge=vmbr0,ip=dhcp|<cidr>,gw=..,hwaddr=..`. */
export function parseLxcNic(value: string): LxcNic {
  const items = parseItems(value, {});
  const options = new Map(
    [...items].map(([key, item]) => {
      const rule = LXC_NIC_OPTIONS[key];
      if (!rule) throw new ValueError(`has an unknown item '${key}' (known: ${Object.keys(LXC_NIC_OPTIONS).join(', ')})`);
      const checked = itemValue(key, item, rule);
      return [key, key === 'hwaddr' ? checked.toUpperCase() : checked] as const;
    }),
  );
  if (!options.has('name')) throw new ValueError("must give the interface's name, e.g. name=eth0,bridge=vmbr0,ip=dhcp");
  return { options };
}

export function formatLxcNic(nic: LxcNic): string {
  return [...nic.options].map(([key, value]) => `${key}=${value}`).join(',');
}

export const LXC_NIC: ValueRule = {
  description:
    'A network interface: `name=<ifname>` with `bridge`, `ip` (dhcp, manual or a CIDR), `gw`, `hwaddr`, `ip6`, `gw6`, `tag`, `firewall`, `mtu`, `rate`.',
  type: 'string',
  parse: (value) => formatLxcNic(parseLxcNic(value)),
};
