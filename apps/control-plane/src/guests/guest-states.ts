import { Injectable } from '@nestjs/common';
import type { GuestSpec } from '@corral/protocol';
import { ApiError } from '../errors/api-error.js';
import type { StorageRow } from '../inventory/storage/storage.entity.js';
import { StoragesRepository } from '../inventory/storage/storages.repository.js';
import { existingGuest } from './existing-guest.js';
import type { GuestKind } from './guest-kinds.js';
import type { GuestRef } from './guest-ref.js';
import { guestSpec } from './guest-spec.js';
import { GuestView, type GuestState } from '../inventory/guests/guest-view.js';
import { runState } from './status-entry.js';

/** The guests as their operations read them: the guest or its 404, the state an operation needs, the spec the agent gets. */
@Injectable()
export class GuestStates {
  constructor(
    private readonly view: GuestView,
    private readonly storages: StoragesRepository,
  ) {}

  /** The guest, or 404: unknown, another kind, or on another node. */
  existing(guest: GuestRef): GuestState {
    return existingGuest(this.view, guest.kind, guest.node, guest.vmid);
  }

  /** The guest on whichever node it is, or 404: unknown or another kind. */
  anywhere(kind: GuestKind, vmid: number): GuestState {
    return existingGuest(this.view, kind, undefined, vmid);
  }

  /** A 409 unless the guest is unlocked and in one of `states`; `problem` ends the message (`VM 100 is not running`). */
  mustBe(guest: GuestRef, states: readonly ReturnType<typeof runState>[], problem: string): void {
    const state = this.existing(guest);
    const { kind, vmid } = guest;
    if (state.row.lock !== null) throw new ApiError('GUEST_STATE', `${kind.noun} ${vmid} is locked (${state.row.lock})`);
    if (!states.includes(runState(state))) throw new ApiError('GUEST_STATE', `${kind.noun} ${vmid} ${problem}`);
  }

  /** The guest as the agent runs it. */
  async spec(guest: GuestRef): Promise<GuestSpec> {
    return guestSpec(this.existing(guest).row, await this.storageMap());
  }

  async storageMap(): Promise<Map<string, StorageRow>> {
    return new Map((await this.storages.all()).map((storage) => [storage.storage, storage]));
  }
}
