import { z } from 'zod';
import { Vmid } from '../fields.js';
import type { CommandDefinition } from '../command-definition.js';

/** One network interface inside a running container, as `ip -j address` shows it there. */
export const ContainerInterface = z.strictObject({
  /** The name inside the container (`lo`, `eth0`); names inside a container are the container's, not the host's rules. */
  name: z.string().min(1).max(15),
  /** Its MAC address, lower-case, as `ip` writes it. */
  hwaddr: z.string().max(64),
  addresses: z.array(
    z.strictObject({
      family: z.enum(['inet', 'inet6']),
      address: z.string().max(64),
      prefix: z.number().int().min(0).max(128),
    }),
  ),
});
export type ContainerInterface = z.infer<typeof ContainerInterface>;

export const guestInterfaces = {
  description:
    "Containers only: the network interfaces inside the running container with their addresses, read in the container's network namespace (PVE's `.../lxc/{vmid}/interfaces`). A container that does not run is a failure saying so.",
  params: z.strictObject({ vmid: Vmid }),
  result: z.array(ContainerInterface),
} satisfies CommandDefinition;
