import type { Privilege } from '@corral/acl';
import type { GuestType } from '@corral/protocol';
import {
  isMountKey,
  isNicKey,
  isQemuVolumeKey,
  LXC_KEYS,
  QEMU_KEYS,
  UNSUPPORTED_LXC_KEYS,
  UNSUPPORTED_QEMU_KEYS,
  type ValueRule,
} from '@corral/pve-formats';

/** The operations every guest has, by PVE's task type of each kind. */
export type GuestAction =
  | 'create'
  | 'start'
  | 'stop'
  | 'shutdown'
  | 'reboot'
  | 'suspend'
  | 'resume'
  | 'destroy'
  | 'template'
  | 'clone'
  | 'config'
  | 'reset'
  | 'snapshot'
  | 'rollback'
  | 'delsnapshot'
  | 'migrate';

/** What differs between VMs and containers; everything else is shared by the services of guests. */
export interface GuestKind {
  readonly type: GuestType;
  /** How PVE names one in messages: `VM 100`, `CT 200`. */
  readonly noun: 'VM' | 'CT';
  readonly keys: Readonly<Record<string, ValueRule>>;
  readonly unsupported: Readonly<Record<string, string>>;
  /** PVE's worker types. */
  readonly tasks: Readonly<Partial<Record<GuestAction, string>>>;
  /** Config keys that hold volumes (disks, root file system, mount points). */
  isVolumeKey(key: string): boolean;
  /** The privilege PVE asks for to change this key (`VM.Config.Memory`, ...). */
  privilegeOf(key: string): Privilege;
}

const CPU_KEYS = new Set(['cores', 'sockets', 'vcpus', 'cpu', 'cpulimit', 'cpuunits', 'numa', 'affinity']);
const MEMORY_KEYS = new Set(['memory', 'balloon', 'shares', 'swap']);
const HARDWARE_KEYS = new Set(['vga', 'scsihw', 'machine', 'bios', 'tablet', 'acpi', 'kvm', 'hotplug', 'localtime']);
const CLOUDINIT_KEYS = /^(?:ipconfig\d+|ciuser|cipassword|citype|sshkeys|nameserver|searchdomain)$/;

function privilegeOf(isVolumeKey: (key: string) => boolean, qemu: boolean) {
  return (key: string): Privilege => {
    if (isVolumeKey(key)) return 'VM.Config.Disk';
    if (isNicKey(key)) return 'VM.Config.Network';
    if (CPU_KEYS.has(key)) return 'VM.Config.CPU';
    if (MEMORY_KEYS.has(key)) return 'VM.Config.Memory';
    if (qemu && HARDWARE_KEYS.has(key)) return 'VM.Config.HWType';
    if (qemu && CLOUDINIT_KEYS.test(key)) return 'VM.Config.Cloudinit';
    return 'VM.Config.Options';
  };
}

export const QEMU: GuestKind = {
  type: 'qemu',
  noun: 'VM',
  keys: QEMU_KEYS,
  unsupported: UNSUPPORTED_QEMU_KEYS,
  tasks: {
    create: 'qmcreate',
    start: 'qmstart',
    stop: 'qmstop',
    shutdown: 'qmshutdown',
    reboot: 'qmreboot',
    reset: 'qmreset',
    suspend: 'qmpause',
    resume: 'qmresume',
    destroy: 'qmdestroy',
    template: 'qmtemplate',
    clone: 'qmclone',
    config: 'qmconfig',
    snapshot: 'qmsnapshot',
    rollback: 'qmrollback',
    delsnapshot: 'qmdelsnapshot',
    migrate: 'qmigrate',
  },
  isVolumeKey: isQemuVolumeKey,
  privilegeOf: privilegeOf(isQemuVolumeKey, true),
};

export const LXC: GuestKind = {
  type: 'lxc',
  noun: 'CT',
  keys: LXC_KEYS,
  unsupported: UNSUPPORTED_LXC_KEYS,
  tasks: {
    create: 'vzcreate',
    start: 'vzstart',
    stop: 'vzstop',
    shutdown: 'vzshutdown',
    reboot: 'vzreboot',
    suspend: 'vzsuspend',
    resume: 'vzresume',
    destroy: 'vzdestroy',
    template: 'vztemplate',
    clone: 'vzclone',
    snapshot: 'vzsnapshot',
    rollback: 'vzrollback',
    delsnapshot: 'vzdelsnapshot',
    migrate: 'vzmigrate',
  },
  isVolumeKey: isMountKey,
  privilegeOf: privilegeOf(isMountKey, false),
};

/** The kind of a guest of this type. */
export function kindOf(type: GuestType): GuestKind {
  return type === 'qemu' ? QEMU : LXC;
}
