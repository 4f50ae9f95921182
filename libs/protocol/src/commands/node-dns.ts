import { z } from 'zod';
import { DomainName, IpAddress } from '../fields.js';
import type { CommandDefinition } from '../command-definition.js';

/**
 * The resolver settings the agent writes to `<host root>/etc/resolv.conf`. Each value becomes one
 * line of that file, hence the strict formats (no value can start a second line).
 */
export const DnsSettings = z.strictObject({
  /** Search domains, in order (glibc reads at most six). PVE's single `search` string is split on spaces. */
  search: z.array(DomainName).max(6, 'at most six search domains'),
  /** Name servers, in order: the resolver uses at most three (PVE's `dns1`..`dns3`). */
  servers: z.array(IpAddress).max(3, 'at most three name servers'),
});
export type DnsSettings = z.infer<typeof DnsSettings>;

export const nodeDnsGet = {
  description: "The search domains and name servers in the host's resolv.conf (the first three servers).",
  params: z.strictObject({}),
  result: z.object({ search: z.array(z.string()), servers: z.array(z.string()).max(3) }),
} satisfies CommandDefinition;

export const nodeDnsSet = {
  description: "Replace the search and nameserver lines of the host's resolv.conf, keeping its other lines.",
  params: DnsSettings,
  result: z.null(),
} satisfies CommandDefinition;
