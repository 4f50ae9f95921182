import { z } from 'zod';
import type { CommandDefinition } from '../command-definition.js';
import { Vmid } from '../fields.js';
import { GuestVolume, HostFilePath } from './guest.js';

/*
 * A VM's cloud-init drive (docs/guests.md "Cloud-init"): the control plane renders the files from
 * the VM's config, so what `.../cloudinit/dump` shows is what the drive holds; the agent only
 * makes the ISO image of them and writes it into the drive's volume.
 */

const IsoPath = z.string().regex(/^(?:\/[a-z0-9_-][a-z0-9_.-]*)+$/, 'must be an absolute path of lower-case names');
/** A file of the drive: its path inside the ISO, and its content, or a snippet file on the host whose content replaces it (`cicustom`). */
export const CloudinitFile = z.union([
  z.strictObject({ path: IsoPath, content: z.string().max(3 * 1024 * 1024) }),
  z.strictObject({ path: IsoPath, snippet: HostFilePath }),
]);
export type CloudinitFile = z.infer<typeof CloudinitFile>;

export const guestCloudinitWrite = {
  description:
    "Write a VM's cloud-init drive: an ISO 9660 image (Rock Ridge and Joliet) with volume label `label` (`cidata` for NoCloud, `config-2` for an OpenStack config drive) holding `files`, made with genisoimage from a private temporary folder, then written into `volume` in its format (replacing what it held; a missing volume is made). A snippet that does not exist fails the command, naming it. The `pve` driver runs `qm cloudinit update <vmid>`, which renders PVE's own files.",
  params: z.strictObject({
    vmid: Vmid,
    volume: GuestVolume,
    label: z.enum(['cidata', 'config-2']),
    files: z.array(CloudinitFile).min(1).max(8),
  }),
  result: z.null(),
} satisfies CommandDefinition;
