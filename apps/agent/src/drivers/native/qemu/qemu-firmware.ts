import { access, copyFile } from 'node:fs/promises';
import type { GuestSpec, GuestVolume } from '@corral/protocol';
import { hostPath, type Host } from '../../../host/host.js';
import { imageFormat, type ImagePlan } from './qemu-images.js';
import { escapeOption } from './qemu-option-value.js';
import type { QemuRuntimeFiles } from './qemu-runtime-files.js';

/*
 * UEFI firmware (`bios: ovmf`), from Debian's ovmf package, chosen as PVE chooses it: for an
 * `efitype=4m` vars disk the 4 MiB build, with Secure Boot (the build that needs SMM) on a q35
 * machine, and the vars template with Microsoft's and the distribution's keys for
 * `pre-enrolled-keys=1`; else the 2 MiB build. The firmware files are the host's, as QEMU is.
 */

export const OVMF_DIR = '/usr/share/OVMF';

export interface OvmfFiles {
  /** The firmware, read-only (pflash unit 0). */
  readonly code: string;
  /** The vars template an EFI vars disk is a copy of (pflash unit 1). */
  readonly vars: string;
}

export function ovmfFiles(efivars: GuestVolume['efivars'], q35: boolean): OvmfFiles {
  if (efivars?.type !== '4m') return { code: `${OVMF_DIR}/OVMF_CODE.fd`, vars: `${OVMF_DIR}/OVMF_VARS.fd` };
  return { code: `${OVMF_DIR}/OVMF_CODE_4M${q35 ? '.secboot' : ''}.fd`, vars: `${OVMF_DIR}/OVMF_VARS_4M${efivars.msKeys ? '.ms' : ''}.fd` };
}

/** Whether the VM runs QEMU's q35 machine (`machine: q35...`); else i440fx (`pc`). */
export function isQ35(guest: GuestSpec): boolean {
  return (guest.config['machine'] ?? '').startsWith('q35');
}

export function usesOvmf(guest: GuestSpec): boolean {
  return guest.config['bios'] === 'ovmf';
}

/** Refuses a start or a new EFI vars disk when the host lacks a firmware file, naming the package. */
export async function requireOvmf(files: OvmfFiles): Promise<void> {
  for (const file of [files.code, files.vars]) {
    await access(file).catch(() => {
      throw new Error(`the UEFI firmware ${file} is not installed on this host (Debian package ovmf)`);
    });
  }
}

/** A new EFI vars disk: the vars template converted into the volume's format, as PVE makes it. */
export function efiVarsImagePlan(host: Host, vmid: number, volume: GuestVolume, files: OvmfFiles): ImagePlan {
  return { volume, args: ['convert', '-f', 'raw', '-O', imageFormat(vmid, volume), files.vars, hostPath(host, volume.path)] };
}

/**
 * The pflash drives of a VM with OVMF: the firmware read-only, then its EFI vars disk, or without
 * one a temporary copy of the vars template (made by `prepareFirmware`), as PVE runs it. On q35
 * the flash is secure, so that only SMM code writes the Secure Boot variables.
 */
export function firmwareArgs(guest: GuestSpec, host: Host, files: Pick<QemuRuntimeFiles, 'efivars'>): string[] {
  if (!usesOvmf(guest)) return [];
  const efidisk = guest.volumes.find((volume) => volume.key === 'efidisk0');
  const ovmf = ovmfFiles(efidisk?.efivars, isQ35(guest));
  const vars =
    efidisk === undefined
      ? `format=raw,file=${escapeOption(files.efivars)}`
      : `format=${efidisk.format},file=${escapeOption(hostPath(host, efidisk.path))}`;
  return [
    ...(isQ35(guest) && efidisk?.efivars?.type === '4m' ? ['-global', 'driver=cfi.pflash01,property=secure,value=on'] : []),
    ...['-drive', `if=pflash,unit=0,format=raw,readonly=on,file=${escapeOption(ovmf.code)}`],
    ...['-drive', `if=pflash,unit=1,id=drive-efidisk0,${vars}`],
  ];
}

/** Checks the firmware is installed and, for a VM without an EFI vars disk, makes the temporary copy of the vars template; says so, as PVE warns. */
export async function prepareFirmware(
  guest: GuestSpec,
  files: Pick<QemuRuntimeFiles, 'efivars'>,
  log: (line: string) => void,
): Promise<void> {
  if (!usesOvmf(guest)) return;
  const efidisk = guest.volumes.find((volume) => volume.key === 'efidisk0');
  const ovmf = ovmfFiles(efidisk?.efivars, isQ35(guest));
  await requireOvmf(ovmf);
  if (efidisk !== undefined) return;
  log('WARN: no efidisk configured! Using temporary efivars disk.');
  await copyFile(ovmf.vars, files.efivars);
}
