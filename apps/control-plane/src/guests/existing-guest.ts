import { ApiError } from '../errors/api-error.js';
import { notFound } from '../errors/resource-errors.js';
import type { GuestKind } from './guest-kinds.js';
import type { GuestState, GuestView } from '../inventory/guests/guest-view.js';

/** The guest, or 404: unknown, another kind, or on another node (`undefined`: any node). */
export function existingGuest(view: GuestView, kind: GuestKind, node: string | undefined, vmid: number): GuestState {
  const state = view.get(vmid);
  if (!state || state.row.type !== kind.type) throw notFound(`${kind.noun} ${vmid}`);
  if (node !== undefined && state.row.node !== node)
    throw new ApiError('NOT_FOUND', `${kind.noun} ${vmid} does not exist on node '${node}' (it is on node '${state.row.node}')`);
  return state;
}
