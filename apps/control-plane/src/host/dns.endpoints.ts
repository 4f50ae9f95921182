import { z } from 'zod';
import { endpoint } from '../http/endpoint.js';
import { stringParam } from '../http/params.js';
import { AUDIT_NODE, MODIFY_NODE, NODE } from '../nodes/nodes.endpoints.js';

const server = (n: number) => stringParam({ description: `Name server ${n} (an IPv4 or IPv6 address).`, maxLength: 64 });

export const DnsSettingsResult = z.object({
  search: z.string().optional().meta({ description: 'The search domains, separated by spaces.' }),
  dns1: z.string().optional(),
  dns2: z.string().optional(),
  dns3: z.string().optional(),
});

export const DNS_ENDPOINTS = {
  get: endpoint({
    method: 'GET',
    path: '/nodes/{node}/dns',
    summary: "The host's search domains and name servers (its resolv.conf)",
    parameters: z.object(NODE),
    returns: DnsSettingsResult,
    permission: AUDIT_NODE,
  }),
  set: endpoint({
    method: 'PUT',
    path: '/nodes/{node}/dns',
    summary: "Set the host's search domains and up to three name servers; resolv.conf's other lines stay",
    parameters: z.object({
      ...NODE,
      search: stringParam({ description: 'Search domains, separated by spaces (at most six).', maxLength: 1024 }),
      dns1: server(1).optional(),
      dns2: server(2).optional(),
      dns3: server(3).optional(),
    }),
    returns: z.null(),
    permission: MODIFY_NODE,
  }),
};
