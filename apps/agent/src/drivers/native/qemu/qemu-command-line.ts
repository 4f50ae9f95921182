import type { GuestNic, GuestSpec, GuestVolume } from '@corral/protocol';
import { hostPath, type Host } from '../../../host/host.js';
import { cardNotConnected } from '../../guest-messages.js';
import { cpuArgument, type Accelerator } from './qemu-cpu-model.js';
import { firmwareArgs, isQ35 } from './qemu-firmware.js';
import { escapeOption } from './qemu-option-value.js';
import { tpmArgs } from './qemu-tpm.js';
import { guestAgentArgs } from './qga-device.js';
import type { QemuRuntimeFiles } from './qemu-runtime-files.js';

/** What the command line depends on besides the guest. */
export interface QemuHostFacts {
  /** Volume paths resolve under its root. */
  readonly host: Host;
  readonly accelerator: Accelerator;
  readonly files: QemuRuntimeFiles;
  /** The bridges the host has: a card on any other is left unplugged. */
  readonly bridges: ReadonlySet<string>;
  /** The target of a migration: QEMU waits for the VM's state (`-incoming defer`, then QMP `migrate-incoming`). */
  readonly incoming?: boolean;
  /** A rollback to a snapshot with the VM's state: QEMU reverts the disks to it and loads that state (`-loadvm`). */
  readonly loadvm?: string;
}

/** A tap QEMU creates for a card; the agent puts it on its bridge once QEMU runs. */
export interface QemuTap {
  readonly nic: string;
  readonly ifname: string;
  readonly bridge: string;
}

export interface QemuCommandLine {
  readonly args: string[];
  readonly taps: QemuTap[];
  /** Task log lines about what the VM gets less of than its configuration says. */
  readonly notes: string[];
}

const DISK = /^(scsi|virtio|ide|sata)([0-9]+)$/;
const NIC = /^net([0-9]+)$/;
/** Volumes that are no disk of the guest: the firmware's vars (pflash) and the TPM's state (swtpm's). */
const FIRMWARE_STATE = ['efidisk0', 'tpmstate0'];

const NIC_DEVICES: Readonly<Record<NonNullable<GuestNic['model']>, string>> = {
  virtio: 'virtio-net-pci',
  e1000: 'e1000',
  e1000e: 'e1000e',
  rtl8139: 'rtl8139',
  vmxnet3: 'vmxnet3',
};

/** PVE numbers boot devices from 100 in the order of `boot: order=...`. */
const FIRST_BOOT_INDEX = 100;

/**
 * The arguments of `qemu-system-x86_64` for a guest, as PVE builds them: an i440fx machine, or
 * q35 when its `machine` says so, with SeaBIOS or OVMF (`bios`), and a TPM with `tpmstate0`: in the background once ready (`-daemonize`), with its pid file, QMP and VNC on
 * unix sockets and no default devices, started paused (`-S`) so that the guest's first packets
 * (DHCP) go out only once its taps are on their bridges. Values inside QEMU's `a=b,c=d` options
 * have their commas doubled, QEMU's escape, as a path may hold one.
 */
export function qemuCommandLine(guest: GuestSpec, facts: QemuHostFacts): QemuCommandLine {
  const { files, accelerator } = facts;
  const notes: string[] = [];
  const taps: QemuTap[] = [];
  const bootIndex = bootOrder(guest.config['boot']);
  const disks = guest.volumes.filter((volume) => {
    if (DISK.test(volume.key)) return true;
    if (!volume.key.startsWith('unused') && !FIRMWARE_STATE.includes(volume.key))
      notes.push(`${volume.key}: not attached (the native driver attaches scsi, virtio, ide and sata disks)`);
    return false;
  });
  const buses = new Set(disks.map((volume) => DISK.exec(volume.key)?.[1]));
  const q35 = isQ35(guest);
  const tpm = guest.volumes.some((volume) => volume.key === 'tpmstate0');
  return {
    args: [
      ...[
        '-name',
        `guest=${guest.name}`,
        '-S',
        ...(facts.incoming === true ? ['-incoming', 'defer'] : []),
        ...(facts.loadvm !== undefined ? ['-loadvm', facts.loadvm] : []),
        '-daemonize',
        '-pidfile',
        files.pid,
        '-D',
        files.log,
      ],
      ...['-chardev', `socket,id=qmp,path=${escapeOption(files.qmp)},server=on,wait=off`, '-mon', 'chardev=qmp,mode=control'],
      ...[
        '-vnc',
        `unix:${escapeOption(files.vnc)}`,
        '-nodefaults',
        '-no-user-config',
        '-machine',
        q35 ? 'q35' : 'pc',
        '-accel',
        accelerator,
      ],
      ...firmwareArgs(guest, facts.host, files),
      ...['-m', String(guest.memoryMiB), '-smp', `${guest.cores * guest.sockets},sockets=${guest.sockets},cores=${guest.cores}`],
      ...['-cpu', cpuArgument(guest.cpu, accelerator), ...smbios(guest.config['smbios1']), '-vga', 'std'],
      ...(buses.has('scsi') ? ['-device', 'virtio-scsi-pci,id=scsihw0'] : []),
      ...(buses.has('sata') ? ['-device', 'ahci,id=ahci0'] : []),
      ...disks.flatMap((volume) => diskArgs(volume, bootIndex.get(volume.key), facts.host, q35)),
      ...(tpm ? tpmArgs(files) : []),
      ...guest.nics.flatMap((nic) => nicArgs(guest.vmid, nic, bootIndex.get(nic.key), facts.bridges, taps, notes)),
      ...guestAgentArgs(guest.config['agent'], escape(files.qga)),
    ],
    taps,
    notes,
  };
}

function diskArgs(volume: GuestVolume, bootIndex: number | undefined, host: Host, q35: boolean): string[] {
  const [, bus, number] = DISK.exec(volume.key) ?? [];
  const unit = Number(number);
  // q35's IDE buses (its AHCI ports) have one unit each: PVE puts ide0..ide3 on ide.0, ide.2, ide.1, ide.3.
  const ide = q35 ? `bus=ide.${(unit >> 1) + 2 * (unit & 1)},unit=0` : `bus=ide.${unit >> 1},unit=${unit & 1}`;
  const cdrom = volume.cdrom === true;
  const drive = `file=${escapeOption(hostPath(host, volume.path))},format=${volume.format},if=none,id=drive-${volume.key}${cdrom ? ',media=cdrom,readonly=on' : ''}`;
  const place: Record<string, string> = {
    scsi: `${cdrom ? 'scsi-cd' : 'scsi-hd'},bus=scsihw0.0,channel=0,scsi-id=${unit},lun=0`,
    // virtio-blk has no CD-ROM: the drive is read-only, which is what a CD-ROM is to the guest.
    virtio: 'virtio-blk-pci',
    ide: `${cdrom ? 'ide-cd' : 'ide-hd'},${ide}`,
    sata: `${cdrom ? 'ide-cd' : 'ide-hd'},bus=ahci0.${unit}`,
  };
  return ['-drive', drive, '-device', `${place[bus ?? '']},drive=drive-${volume.key},id=${volume.key}${bootSuffix(bootIndex)}`];
}

/**
 * A card on an existing bridge gets a tap named as PVE names them (`tap100i0`); without a bridge,
 * QEMU's user-mode network, as PVE does; on a bridge the host lacks, no backend at all: the guest
 * sees a card with its cable out.
 */
function nicArgs(
  vmid: number,
  nic: GuestNic,
  bootIndex: number | undefined,
  bridges: ReadonlySet<string>,
  taps: QemuTap[],
  notes: string[],
): string[] {
  const number = NIC.exec(nic.key)?.[1];
  if (number === undefined) {
    notes.push(`${nic.key}: not attached (network cards are net0, net1, ...)`);
    return [];
  }
  const device = `${NIC_DEVICES[nic.model ?? 'virtio']},mac=${nic.mac},id=${nic.key}${bootSuffix(bootIndex)}`;
  if (nic.bridge === undefined) return ['-netdev', `user,id=${nic.key}`, '-device', `${device},netdev=${nic.key}`];
  if (!bridges.has(nic.bridge)) {
    notes.push(cardNotConnected(nic.key, nic.bridge));
    return ['-device', device];
  }
  const ifname = `tap${vmid}i${number}`;
  taps.push({ nic: nic.key, ifname, bridge: nic.bridge });
  return ['-netdev', `tap,id=${nic.key},ifname=${ifname},script=no,downscript=no`, '-device', `${device},netdev=${nic.key}`];
}

/** `boot: order=scsi0;ide2;net0` as boot indexes; PVE's older `boot: cdn` leaves SeaBIOS its own order. */
function bootOrder(boot: string | undefined): Map<string, number> {
  const order = /(?:^|,)order=([^,]*)/.exec(boot ?? '')?.[1];
  return new Map(
    (order ?? '')
      .split(';')
      .filter((key) => key !== '')
      .map((key, position) => [key, FIRST_BOOT_INDEX + position]),
  );
}

/** The VM's SMBIOS UUID (`smbios1: uuid=...`), which guests use as their machine id. */
function smbios(smbios1: string | undefined): string[] {
  const uuid = /(?:^|,)uuid=([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:,|$)/.exec(smbios1 ?? '')?.[1];
  return uuid === undefined ? [] : ['-smbios', `type=1,uuid=${uuid}`];
}

function bootSuffix(bootIndex: number | undefined): string {
  return bootIndex === undefined ? '' : `,bootindex=${bootIndex}`;
}

/** A command line as one log line, each argument that a shell would split or expand in single quotes. */
export function formatCommandLine(program: string, args: readonly string[]): string {
  const quote = (arg: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`);
  return [program, ...args].map(quote).join(' ');
}
