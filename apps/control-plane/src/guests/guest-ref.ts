import type { GuestKind } from './guest-kinds.js';

/** One guest as a request names it: its kind, the node it is asked on, and its vmid. */
export interface GuestRef {
  readonly kind: GuestKind;
  readonly node: string;
  readonly vmid: number;
}

/** The guest of `kind` that a request's `node` and `vmid` name. */
export function guestRef(kind: GuestKind, params: { readonly node: string; readonly vmid: number }): GuestRef {
  return { kind, node: params.node, vmid: params.vmid };
}
