import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import { nodeParam } from '../../nodes/node-params.js';
import { MAY_CONFIGURE, sidParam } from './ha-params.js';

/*
 * PVE's HA moves (`/cluster/ha/resources/{sid}/migrate|relocate`; docs/ha.md "Moves and failback"):
 * the guest moves to `node` on its queue of operations, and stays under HA there.
 */

const MOVE_PARAMETERS = z.object({ sid: sidParam(), node: nodeParam('The target node.') });
const ALLOWED =
  'The target must be another online node, allowed by the resource\'s group when it is restricted, where the VM\'s disks are (shared storage): a 400 naming `node` otherwise. Containers cannot move between nodes yet (400). Answers null at once, as PVE; the `qmigrate` task shows the move.';

export const HA_MOVE_ENDPOINTS = {
  migrate: endpoint({
    method: 'POST',
    path: '/cluster/ha/resources/{sid}/migrate',
    summary: 'Move an HA VM to another node, live when it runs',
    description: `A running VM migrates live (its memory copied, it keeps running); a stopped one moves offline. ${ALLOWED}`,
    parameters: MOVE_PARAMETERS,
    returns: z.null(),
    permission: MAY_CONFIGURE,
  }),
  relocate: endpoint({
    method: 'POST',
    path: '/cluster/ha/resources/{sid}/relocate',
    summary: 'Move an HA VM to another node by stopping it, moving it, and starting it there',
    description: `The VM is stopped (hard), moved offline, and the HA manager starts it on the target when its requested state is \`started\`. ${ALLOWED}`,
    parameters: MOVE_PARAMETERS,
    returns: z.null(),
    permission: MAY_CONFIGURE,
  }),
};
export type HaMoveEndpoints = typeof HA_MOVE_ENDPOINTS;
