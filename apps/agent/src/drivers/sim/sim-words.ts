import type { GuestType, GuestVolume } from '@corral/protocol';

/** What the native driver says where its VM and container parts differ (drivers/native), so that the simulator says the same. */
interface Words {
  /** A create or clone onto a volume that exists. */
  volumeExists(vmid: number, volume: GuestVolume): string;
  /** An operation that needs the guest stopped. */
  running(vmid: number, operation: 'destroy' | 'clone' | 'template'): string;
  /** The task log line of a volume made by a create or a clone, if any. */
  made(volume: GuestVolume, from: GuestVolume | undefined): string | undefined;
  removed(volume: GuestVolume): string;
}

export const SIM_WORDS: Readonly<Record<GuestType, Words>> = {
  qemu: {
    volumeExists: (vmid, volume) => `VM ${vmid}: volume ${volume.key} already exists (${volume.path})`,
    running: (vmid, operation) => `VM ${vmid} is running: ${{ destroy: 'stop it before destroying it', clone: 'clone it once it is stopped', template: 'make a template of it once it is stopped' }[operation]}`,
    // qemu-img's own line for a new image or overlay; a full copy (qemu-img convert) says nothing.
    made: (volume, from) => {
      if (from !== undefined && volume.base === undefined) return undefined;
      if (volume.format !== 'qcow2') return `Formatting '${volume.path}', fmt=${volume.format} size=${volume.size}`;
      const backing = volume.base === undefined ? '' : ` backing_file=${volume.base} backing_fmt=qcow2`;
      return `Formatting '${volume.path}', fmt=qcow2 cluster_size=65536 extended_l2=off compression_type=zlib size=${volume.size}${backing} lazy_refcounts=off refcount_bits=16`;
    },
    removed: (volume) => `removed ${volume.volid}`,
  },
  lxc: {
    volumeExists: (_vmid, volume) => `volume ${volume.volid} already exists at ${volume.path} and is not empty`,
    running: (vmid, operation) => `CT ${vmid} is running: ${{ destroy: 'stop it before destroying it', clone: 'a full clone needs it stopped', template: 'stop it before turning it into a template' }[operation]}`,
    made: (volume, from) => (from === undefined ? undefined : `copying ${from.volid} to ${volume.volid}`),
    removed: (volume) => `removing volume ${volume.volid}`,
  },
};
