import { Controller, Injectable } from '@nestjs/common';
import type { ContainerInterface } from '@corral/protocol';
import { z } from 'zod';
import { AgentHub } from '../../agents/agent-hub.js';
import { ApiError } from '../../errors/api-error.js';
import { endpoint, Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { existingGuest } from '../existing-guest.js';
import { AUDIT, GUEST } from '../guest.endpoints.js';
import { LXC } from '../guest-kinds.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { runState } from '../status-entry.js';

/** Reading addresses in a running container: a moment. */
const INTERFACES_MS = 30_000;

const IpAddress = z.object({
  'ip-address': z.string(),
  'ip-address-type': z.enum(['inet', 'inet6']),
  prefix: z.number().int(),
});

/** PVE's entry: both MAC fields, the first IPv4 and IPv6 address with its prefix, and every address. */
const InterfaceEntry = z.object({
  name: z.string(),
  hwaddr: z.string(),
  'hardware-address': z.string(),
  inet: z.string().optional().meta({ description: 'The first IPv4 address, `<address>/<prefix>`.' }),
  inet6: z.string().optional().meta({ description: 'The first IPv6 address, `<address>/<prefix>`.' }),
  'ip-addresses': z.array(IpAddress),
});

export const containerInterfacesEndpoint = endpoint({
  method: 'GET',
  path: '/nodes/{node}/lxc/{vmid}/interfaces',
  summary: 'The network interfaces inside the running container, with their addresses (read in its network namespace)',
  parameters: z.object(GUEST),
  returns: z.array(InterfaceEntry),
  permission: AUDIT,
});

/** A running container's interfaces as PVE answers them, read by its node's agent. */
@Injectable()
export class ContainerInterfaces {
  constructor(
    private readonly view: GuestView,
    private readonly hub: AgentHub,
  ) {}

  async list(node: string, vmid: number): Promise<ResultOf<typeof containerInterfacesEndpoint>> {
    const state = existingGuest(this.view, LXC, node, vmid);
    if (runState(state) === 'stopped') throw new ApiError('GUEST_STATE', `CT ${vmid} is not running`);
    this.hub.reachable(node);
    const found = await this.hub.request(node, 'guest.interfaces', { vmid }, { timeoutMs: INTERFACES_MS });
    return found.map(pveEntry);
  }
}

function pveEntry(found: ContainerInterface): z.output<typeof InterfaceEntry> {
  const first = (family: 'inet' | 'inet6') => found.addresses.find((address) => address.family === family);
  const [inet, inet6] = [first('inet'), first('inet6')];
  return {
    name: found.name,
    hwaddr: found.hwaddr,
    'hardware-address': found.hwaddr,
    ...(inet !== undefined ? { inet: `${inet.address}/${inet.prefix}` } : {}),
    ...(inet6 !== undefined ? { inet6: `${inet6.address}/${inet6.prefix}` } : {}),
    'ip-addresses': found.addresses.map((address) => ({
      'ip-address': address.address,
      'ip-address-type': address.family,
      prefix: address.prefix,
    })),
  };
}

/** `GET /nodes/{node}/lxc/{vmid}/interfaces` (bpg reads a running container's addresses through it). */
@Controller()
export class ContainerInterfacesController {
  constructor(private readonly interfaces: ContainerInterfaces) {}

  @Endpoint(containerInterfacesEndpoint)
  list(@Params() p: ParamsOf<typeof containerInterfacesEndpoint>): Promise<ResultOf<typeof containerInterfacesEndpoint>> {
    return this.interfaces.list(p.node, p.vmid);
  }
}
