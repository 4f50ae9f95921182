import { networkList } from '@corral/outbound-address';
import { z } from 'zod';

/** PVE's own appliance index (what `pveam update` reads for PVE 9). */
export const DEFAULT_APLINFO_URL = 'http://download.proxmox.com/images/aplinfo-pve-9.dat';

/**
 * The environment variables of downloads into storages (docs/storage.md "Downloads" and
 * "Appliance templates"): where the appliance index is, and which local or private networks a
 * download may reach (none by default: a user's URL must not probe the hosts' LAN).
 */
export const DOWNLOAD_ENV = {
  CORRAL_APLINFO_URL: z.preprocess(
    (value) => (typeof value === 'string' ? value.trim() || undefined : value),
    z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default(DEFAULT_APLINFO_URL),
  ),
  CORRAL_DOWNLOAD_ALLOW_NETWORKS: z
    .string()
    .transform((text) =>
      text
        .split(',')
        .map((network) => network.trim())
        .filter((network) => network !== ''),
    )
    .superRefine((networks, context) => {
      try {
        networkList(networks);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
      }
    })
    .default([]),
};
