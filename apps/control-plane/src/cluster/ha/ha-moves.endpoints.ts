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
  "The target must be another online node, allowed by the resource's group when it is restricted, where the guest's volumes are (shared storage): a 400 naming `node` otherwise. A container is relocated (PVE moves containers only that way). Answers at once with the resource and the node asked for, as PVE 9; the `qmigrate`/`vzmigrate` task shows the move.";

/** PVE 9's answer to a move: what was asked. Corral moves no other resource with it (PVE's affinity rules). */
export const MoveAnswer = z.object({
  sid: z.string().meta({ description: 'The HA resource, `vm:<vmid>` or `ct:<vmid>`.' }),
  'requested-node': z.string().meta({ description: 'The node it moves to.' }),
});

export const HA_MOVE_ENDPOINTS = {
  migrate: endpoint({
    method: 'POST',
    path: '/cluster/ha/resources/{sid}/migrate',
    summary: 'Move an HA VM to another node, live when it runs',
    description: `A running VM migrates live (its memory copied, it keeps running); a stopped one moves offline. ${ALLOWED}`,
    parameters: MOVE_PARAMETERS,
    returns: MoveAnswer,
    permission: MAY_CONFIGURE,
  }),
  relocate: endpoint({
    method: 'POST',
    path: '/cluster/ha/resources/{sid}/relocate',
    summary: 'Move an HA VM to another node by stopping it, moving it, and starting it there',
    description: `The VM is stopped (hard), moved offline, and the HA manager starts it on the target when its requested state is \`started\`. ${ALLOWED}`,
    parameters: MOVE_PARAMETERS,
    returns: MoveAnswer,
    permission: MAY_CONFIGURE,
  }),
};
export type HaMoveEndpoints = typeof HA_MOVE_ENDPOINTS;
