import { z } from 'zod';
import { endpoint, type Check } from '../../http/endpoint.js';
import { booleanParam, integerParam, stringParam } from '../../http/params.js';
import { GUEST } from '../guest.endpoints.js';
import { VNC_PORTS } from './vnc-tickets.js';

/** PVE's check for a VM's console. */
const CONSOLE: Check = { kind: 'privileges', path: '/vms/{vmid}', privileges: ['VM.Console'] };

/** The VNC console of a VM (docs/guests.md "VNC console"): a ticket first, then the websocket it opens. */
export const VNC_ENDPOINTS = {
  proxy: endpoint({
    method: 'POST',
    path: '/nodes/{node}/qemu/{vmid}/vncproxy',
    summary: "Open the running VM's VNC display for one websocket (vncwebsocket) within 40 s",
    description:
      'Answers once the node has connected to the display. The ticket is good for one vncwebsocket of the same caller, VM and `port` within 40 s, on this control-plane replica; the `vncproxy` task lasts as long as that console.',
    parameters: z.object({
      ...GUEST,
      websocket: booleanParam({ description: 'Accepted for PVE clients: the console is always a websocket.' }).optional(),
      'generate-password': booleanParam({
        description: 'Accepted for PVE clients: the display needs no VNC password (the ticket guards it), so none is generated.',
      }).optional(),
    }),
    returns: z.object({
      user: z.string().meta({ description: 'The caller the ticket is for (a token id for an API token).' }),
      ticket: z.string().meta({ description: 'The one-time VNC ticket: `vncticket` of vncwebsocket.' }),
      cert: z.string().meta({ description: "The certificate (PEM) this control plane serves: the websocket's." }),
      port: z.number().int().meta({ description: '`port` of vncwebsocket: names this console (no TCP port is opened).' }),
      upid: z.string().meta({ description: "The `vncproxy` task's UPID." }),
    }),
    permission: CONSOLE,
  }),
  websocket: endpoint({
    method: 'GET',
    path: '/nodes/{node}/qemu/{vmid}/vncwebsocket',
    summary: "The VM's VNC display as a websocket of binary messages (RFB), for the ticket of vncproxy",
    description:
      "Upgrade this request to a websocket (`Upgrade: websocket`) with the caller's usual credentials and the ticket: the display's bytes pass both ways until either side closes. A request without the upgrade is refused.",
    parameters: z.object({
      ...GUEST,
      port: integerParam({ description: 'The `port` vncproxy answered.', min: VNC_PORTS.first, max: VNC_PORTS.last }),
      vncticket: stringParam({ description: 'The `ticket` vncproxy answered.', maxLength: 512 }),
    }),
    returns: z.object({ port: z.string() }),
    permission: CONSOLE,
  }),
};
