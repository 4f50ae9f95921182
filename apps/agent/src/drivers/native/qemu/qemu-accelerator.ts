import { open } from 'node:fs/promises';
import type { Accelerator } from './qemu-cpu-model.js';

/**
 * How a VM's QEMU runs its guest: PVE's `kvm: 0` asks for no hardware virtualization (TCG, as PVE
 * runs it then, for a host whose KVM is missing or does not work); otherwise `usual`, which is
 * KVM where /dev/kvm opens read-write, else TCG.
 */
export async function acceleratorOf(config: Readonly<Record<string, string>>, usual?: Accelerator): Promise<Accelerator> {
  if (config['kvm'] === '0') return 'tcg';
  return usual ?? (await probeAccelerator());
}

async function probeAccelerator(): Promise<Accelerator> {
  try {
    await (await open('/dev/kvm', 'r+')).close();
    return 'kvm';
  } catch {
    return 'tcg';
  }
}
