import { decimal, flag, integer, numbered, oneOf, properties, text, type ValueRule } from './value-rules.js';

/**
 * VM keys for devices beyond disks and network cards, checked as PVE checks them and stored. Which
 * of them the `native` driver applies, and which only the `pve` driver can (passthrough of host
 * devices), is in docs/guests.md; a VM whose config asks the native driver for a device it cannot
 * give does not start there, and its task says why.
 */

const CONFIG_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const CPU_LIST = /^\d+(?:-\d+)?(?:;\d+(?:-\d+)?)*$/;
const HEX_ID = /^(?:0x)?[0-9a-fA-F]{4}$/;

const HOSTPCI = properties(
  'A host PCI device passed through: `[host=]<id>[;<id>...]`, `mapping`, `pcie`, `rombar`, `x-vga`, ...',
  {
    host: text(
      'PCI ids (`0000:01:00.0`, or `01:00` for all functions).',
      /^(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?(?:;(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?)*$/,
      'must be PCI ids such as 0000:01:00.0',
    ),
    mapping: text('A resource mapping.', CONFIG_ID, 'must be a mapping id'),
    'device-id': text('Device id shown to the guest.', HEX_ID, 'must be a hex id'),
    'vendor-id': text('Vendor id shown to the guest.', HEX_ID, 'must be a hex id'),
    'sub-device-id': text('Sub-device id.', HEX_ID, 'must be a hex id'),
    'sub-vendor-id': text('Sub-vendor id.', HEX_ID, 'must be a hex id'),
    driver: oneOf('Host driver.', ['vfio', 'keep']),
    'legacy-igd': flag('Legacy IGD passthrough.'),
    mdev: text('Mediated device type.', /^[A-Za-z0-9_-]{1,64}$/, 'must be an mdev type'),
    pcie: flag('PCI Express (q35).'),
    rombar: flag('ROM BAR visible.'),
    romfile: text('ROM file under /usr/share/kvm.', /^[A-Za-z0-9_.-]{1,128}$/, 'must be a file name'),
    'x-vga': flag('Primary VGA.'),
  },
  'host',
);

const USB = properties(
  'A USB device: `[host=]<vendor:product>|<bus-port>|spice`, `mapping`, `usb3`.',
  {
    host: text(
      'Host device.',
      /^(?:(?:0x)?[0-9A-Fa-f]{4}:(?:0x)?[0-9A-Fa-f]{4}|\d+-\d+(?:\.\d+)*|[Ss][Pp][Ii][Cc][Ee])$/,
      'must be vendor:product, bus-port or spice',
    ),
    mapping: text('A resource mapping.', CONFIG_ID, 'must be a mapping id'),
    usb3: flag('USB 3.'),
  },
  'host',
);

const VIRTIOFS = properties(
  'A host directory shared with virtiofs: `[dirid=]<mapping>`, `cache`, `direct-io`, `expose-acl`, `expose-xattr`.',
  {
    dirid: text('A directory mapping.', CONFIG_ID, 'must be a mapping id'),
    cache: oneOf('Cache mode.', ['auto', 'always', 'metadata', 'never']),
    'direct-io': flag('Direct I/O.'),
    'expose-acl': flag('Expose ACLs.'),
    'expose-xattr': flag('Expose extended attributes.'),
  },
  'dirid',
);

/** PVE's memory-encryption settings for AMD SEV and Intel TDX hosts. */
const SEV = properties(
  'AMD Secure Encrypted Virtualization: `[type=]std|es|snp`, `no-debug`, `no-key-sharing`, `allow-smt`, `kernel-hashes`.',
  {
    type: oneOf('SEV type.', ['std', 'es', 'snp']),
    'no-debug': flag('No debug.'),
    'no-key-sharing': flag('No key sharing.'),
    'allow-smt': flag('Allow SMT.'),
    'kernel-hashes': flag('Kernel hashes.'),
  },
  'type',
);
const TDX = properties(
  'Intel Trust Domain Extensions: `[type=]tdx`, `attestation`, `vsock-cid`, `vsock-port`.',
  {
    type: oneOf('TDX type.', ['tdx']),
    attestation: flag('Attestation.'),
    'vsock-cid': integer('vsock CID.', 2, 4_294_967_295),
    'vsock-port': integer('vsock port.', 1, 4_294_967_295),
  },
  'type',
);

export const QEMU_HARDWARE_KEYS: Readonly<Record<string, ValueRule>> = {
  ...numbered('hostpci', 16, HOSTPCI),
  ...numbered('usb', 5, USB),
  ...numbered('virtiofs', 10, VIRTIOFS),
  ...numbered(
    'numa',
    8,
    properties('NUMA node: `cpus=<id[-id];...>`, `hostnodes`, `memory` (MiB), `policy`.', {
      cpus: text('Guest CPUs.', CPU_LIST, 'must be CPU ids such as 0-3;6'),
      hostnodes: text('Host NUMA nodes.', CPU_LIST, 'must be node ids such as 0;1'),
      memory: decimal('MiB.', 0, 4_194_304),
      policy: oneOf('Policy.', ['preferred', 'bind', 'interleave']),
    }),
  ),
  ...numbered(
    'parallel',
    3,
    text('A host parallel port.', /^(?:\/dev\/parport\d+|\/dev\/usb\/lp\d+)$/, 'must be /dev/parport<N> or /dev/usb/lp<N>'),
  ),
  ivshmem: properties('Inter-VM shared memory: `size=<MiB>`, `name`.', {
    size: integer('MiB.', 1, 1_048_576),
    name: text('Name.', /^[a-zA-Z0-9-]{1,64}$/, 'must be letters, digits and -'),
  }),
  'amd-sev': SEV,
  'intel-tdx': TDX,
  audio0: properties('An audio device: `device=ich9-intel-hda|intel-hda|AC97`, `driver=spice|none`.', {
    device: oneOf('Device.', ['ich9-intel-hda', 'intel-hda', 'AC97']),
    driver: oneOf('Backend.', ['spice', 'none']),
  }),
  rng0: properties(
    'A VirtIO random number generator: `[source=]/dev/urandom|/dev/random|/dev/hwrng`, `max_bytes`, `period` (ms).',
    {
      source: oneOf('Host entropy source.', ['/dev/urandom', '/dev/random', '/dev/hwrng']),
      max_bytes: integer('Bytes per period.', 0, 2_147_483_647),
      period: integer('Period in ms.', 1, 2_147_483_647),
    },
    'source',
  ),
  watchdog: properties(
    'A hardware watchdog: `[model=]i6300esb|ib700`, `action`.',
    {
      model: oneOf('Model.', ['i6300esb', 'ib700']),
      action: oneOf('What happens when it fires.', ['reset', 'shutdown', 'poweroff', 'pause', 'debug', 'none']),
    },
    'model',
  ),
  spice_enhancements: properties('SPICE enhancements: `foldersharing`, `videostreaming`.', {
    foldersharing: flag('Folder sharing.'),
    videostreaming: oneOf('Video streaming.', ['off', 'all', 'filter']),
  }),
};
