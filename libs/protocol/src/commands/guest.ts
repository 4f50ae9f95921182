import { z } from 'zod';
import { Bytes, InterfaceName, OpaqueId, Seconds, Vmid } from '../fields.js';
import type { CommandDefinition } from '../command-definition.js';

/*
 * Guest commands. Guest configuration is the control plane's truth:
 * every command that needs it carries the whole guest as a `GuestSpec`, already validated and
 * resolved by the control plane (property strings parsed, volumes turned into host paths), so a
 * driver never parses PVE's formats. `config` carries PVE's own keys and values too, for the `pve`
 * driver, which hands them to `qm` and `pct`.
 */

export const GuestType = z.enum(['qemu', 'lxc']);
export type GuestType = z.infer<typeof GuestType>;

/** A PVE config key: `memory`, `net0`, `scsi0`, `rootfs`, `mp1`, ... */
export const ConfigKey = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a config key (lower-case letters, digits, _ or -)');

/** A config value as PVE stores it (a description may span lines; values go to programs as argv items, never through a shell or into a file). */
const ConfigValue = z
  .string()
  .max(65536)
  .regex(/^[^\0]*$/, 'must not contain NUL');

/** An absolute host path without `.`/`..` segments or line breaks; the agent resolves it under its host root. */
export const HostFilePath = z
  .string()
  .max(1024)
  .regex(/^(?:\/[A-Za-z0-9_+@:,=-][A-Za-z0-9._+@:,=-]*)+$/, 'must be an absolute path without . or .. segments');

/** A MAC address as PVE writes it, upper-case hex pairs. */
export const MacAddress = z.string().regex(/^[0-9A-F]{2}(?::[0-9A-F]{2}){5}$/, 'must be a MAC address such as BC:24:11:0A:1B:2C');

/** A QEMU CPU model name (`x86-64-v2-AES`, `host`, `kvm64`, `qemu64`, `Skylake-Server`). */
export const CpuModel = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be a CPU model name');

/**
 * A disk (`scsi0`, `virtio1`, `ide2`, `efidisk0`) or container root/mount point (`rootfs`, `mp0`)
 * on a directory storage: `path` is the image file (`qcow2`, `raw`) or the directory (`subvol`).
 */
export const GuestVolume = z.strictObject({
  key: ConfigKey,
  /** PVE's volume id, such as `local:100/vm-100-disk-0.qcow2`. */
  volid: z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]*:[^\s,;]+$/, 'must be a volume id <storage>:<name>'),
  path: HostFilePath,
  format: z.enum(['qcow2', 'raw', 'subvol']),
  /** Bytes; for a `subvol` the size recorded in the config, which the native driver does not enforce. */
  size: Bytes,
  /** QEMU only: a linked clone's image is a qcow2 overlay of this base image (a template's disk). */
  base: HostFilePath.optional(),
  /** QEMU only: the disk is a CD-ROM (`media=cdrom`). */
  cdrom: z.boolean().optional(),
  /** QEMU only: the EFI vars disk (`efidisk0`), made from OVMF's vars template of `type`, with Microsoft's and the distribution's keys enrolled when `msKeys`. */
  efivars: z.strictObject({ type: z.enum(['2m', '4m']), msKeys: z.boolean() }).optional(),
  /** QEMU only: the TPM state (`tpmstate0`), and the TPM version swtpm emulates with it. */
  tpm: z.enum(['v1.2', 'v2.0']).optional(),
});
export type GuestVolume = z.infer<typeof GuestVolume>;

/** A network card: a QEMU NIC (`model`) or a container veth (`name`, `ip`, `gw`). */
export const GuestNic = z.strictObject({
  /** `net0`, `net1`, ... */
  key: ConfigKey,
  mac: MacAddress,
  /** The host bridge; a driver whose host lacks it says so in the task log and leaves the card unplugged. */
  bridge: InterfaceName.optional(),
  /** QEMU: the emulated card. */
  model: z.enum(['virtio', 'e1000', 'e1000e', 'rtl8139', 'vmxnet3']).optional(),
  /** LXC: the interface name inside the container. */
  name: InterfaceName.optional(),
  /** LXC: `dhcp`, `manual`, or an address with its prefix length. */
  ip: z
    .union([z.literal('dhcp'), z.literal('manual'), z.cidrv4()], { error: 'must be dhcp, manual or an IPv4 address with a prefix length' })
    .optional(),
  gw: z.ipv4().optional(),
});
export type GuestNic = z.infer<typeof GuestNic>;

/** One guest as the control plane holds it. */
export const GuestSpec = z.strictObject({
  type: GuestType,
  vmid: Vmid,
  /** The VM name, or the container's hostname. */
  name: z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,126}[A-Za-z0-9])?$/, 'must be a DNS name'),
  memoryMiB: z.int().min(16).max(4_194_304),
  cores: z.int().min(1).max(1024),
  /** QEMU only (containers have one). */
  sockets: z.int().min(1).max(16),
  /** QEMU only: the CPU model. */
  cpu: CpuModel.optional(),
  /** PVE's `ostype` (`l26`, `debian`, ...). */
  ostype: z
    .string()
    .regex(/^[a-z0-9]{1,16}$/, 'must be an ostype')
    .optional(),
  template: z.boolean(),
  nics: z.array(GuestNic).max(32),
  volumes: z.array(GuestVolume).max(64),
  /** The whole PVE configuration (without `digest`), for the `pve` driver. */
  config: z.record(ConfigKey, ConfigValue),
});
export type GuestSpec = z.infer<typeof GuestSpec>;

/** Which guest, for commands that need no configuration. */
const GuestRef = { type: GuestType, vmid: Vmid };

export const guestCreate = {
  description:
    'Allocate the volumes of a new guest (each volume marked in `allocate`; the others already exist) and, for a container, unpack `ostemplate` into its root. The `pve` driver runs `qm create` / `pct create`. A volume that already exists is refused.',
  params: z.strictObject({
    guest: GuestSpec,
    /** Keys of the volumes to create (the rest were given as existing volumes). */
    allocate: z.array(ConfigKey),
    /** Containers: the template archive (`.tar`, `.tar.gz`, `.tar.xz`, `.tar.zst`) for the root file system. */
    ostemplate: HostFilePath.optional(),
    /** Containers: carry on when unpacking `ostemplate` reports errors (PVE's `ignore-unpack-errors`). */
    ignoreUnpackErrors: z.boolean().optional(),
    /** Containers: root's password hash (SHA-512 crypt), written into the container's `/etc/shadow`; the password itself never reaches the agent. */
    rootPasswordHash: z
      .string()
      .regex(/^\$6\$[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{86}$/, 'must be a SHA-512 crypt hash')
      .optional(),
    /** Containers: public SSH keys for root, written to `/root/.ssh/authorized_keys` in the container. */
    sshPublicKeys: z
      .string()
      .max(65_536)
      .regex(/^[^\0]*$/, 'must not contain NUL')
      .optional(),
  }),
  result: z.null(),
} satisfies CommandDefinition;

export const guestStart = {
  description:
    'Start a stopped guest with this configuration. Refused for a running guest and for a template. With `ha`, the guest is under HA: refused (`unavailable`) unless the agent holds an HA lease that lists it, since only then can it fence the guest.',
  params: z.strictObject({ guest: GuestSpec, ha: z.boolean().optional() }),
  result: z.null(),
} satisfies CommandDefinition;

export const guestStop = {
  description: 'Stop a guest at once (QEMU: quit; LXC: kill). A stopped guest stays stopped.',
  params: z.strictObject(GuestRef),
  result: z.null(),
} satisfies CommandDefinition;

export const guestShutdown = {
  description:
    'Ask the guest to shut down (ACPI power button; LXC: the init signal) and wait up to `timeout` seconds; then stop it if `forceStop`, else fail saying the guest is still running.',
  params: z.strictObject({ ...GuestRef, timeout: Seconds, forceStop: z.boolean() }),
  result: z.null(),
} satisfies CommandDefinition;

export const guestReboot = {
  description:
    'Shut the guest down (as guest.shutdown with forceStop) and start it again with this configuration, so pending changes apply.',
  params: z.strictObject({ guest: GuestSpec, timeout: Seconds }),
  result: z.null(),
} satisfies CommandDefinition;

export const guestReset = {
  description: 'QEMU only: a hard reset of a running VM, as the reset button.',
  params: z.strictObject({ vmid: Vmid }),
  result: z.null(),
} satisfies CommandDefinition;

export const guestSuspend = {
  description: 'Pause a running guest (QEMU: stop the CPUs; LXC: freeze).',
  params: z.strictObject(GuestRef),
  result: z.null(),
} satisfies CommandDefinition;

export const guestResume = {
  description: 'Resume a paused guest.',
  params: z.strictObject(GuestRef),
  result: z.null(),
} satisfies CommandDefinition;

export const guestDestroy = {
  description:
    "Remove a stopped guest from the host: its volumes (those of `guest.volumes`) and the driver's own files for it. Refused while it runs.",
  params: z.strictObject({ guest: GuestSpec }),
  result: z.null(),
} satisfies CommandDefinition;

export const guestClone = {
  description:
    'Copy a stopped guest (or a template) into a new one: each volume of `target` is made from the volume with the same key in `source`, as a full copy, or for a linked clone of a QEMU template as a qcow2 overlay (`base`).',
  params: z.strictObject({ source: GuestSpec, target: GuestSpec }),
  result: z.null(),
} satisfies CommandDefinition;

export const guestTemplate = {
  description:
    'Turn a stopped guest into a template: its volumes become read-only bases (the `pve` driver runs `qm template` / `pct template`).',
  params: z.strictObject({ guest: GuestSpec }),
  result: z.null(),
} satisfies CommandDefinition;

export const guestMonitor = {
  description:
    "QEMU only: run one human-monitor command (`info status`, `info version`, ...) through QMP's human-monitor-command and return its output. The control plane allows only the commands it lists.",
  params: z.strictObject({
    vmid: Vmid,
    command: z
      .string()
      .min(1)
      .max(1024)
      .regex(/^[^\r\n\0]*$/, 'must be one line'),
  }),
  result: z.string(),
} satisfies CommandDefinition;

export const guestVncOpen = {
  description:
    "QEMU only: connect to the running VM's VNC display and open the byte stream `stream` to the control plane beside the agent's connection (`AGENT_STREAMS_PATH/<stream>`, with the node's credential). The display's bytes (RFB) then pass unchanged both ways as binary messages until either side closes, which closes the other. Answered once the stream is open; the stream outlives the request. Refused by drivers without a VNC display of their own: `sim`, and `pve`, whose nodes serve PVE's own vncproxy.",
  params: z.strictObject({ vmid: Vmid, stream: OpaqueId }),
  result: z.null(),
} satisfies CommandDefinition;
