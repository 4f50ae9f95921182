import type { GuestRuntime } from '@corral/protocol';

/** A node's run state after a runtime report of its agent: what the guest listeners are given. */
export interface RuntimeUpdate {
  /** Every guest the node's driver knows, by vmid: the last whole report with the changes since applied. */
  readonly guests: ReadonlyMap<number, GuestRuntime>;
  /** The vmids this report listed or removed; `all` for a whole report. */
  readonly changed: readonly number[] | 'all';
  /** The guests whose making runs on the agent now. */
  readonly making: ReadonlySet<number>;
}
