import { Injectable } from '@nestjs/common';
import type { GuestRow } from '../../../inventory/guests/guest.entity.js';
import { StoragesRepository } from '../../../inventory/storage/storages.repository.js';
import type { HaGroupRow } from '../../../inventory/ha/ha-group.entity.js';
import { HaGroupsRepository } from '../ha-groups.repository.js';
import { guestStorages, recoveryTarget, type Candidate, type Placement } from './recovery-target.js';

/** Where the HA manager would put a guest now, and the group that decided it. */
export interface GuestPlacement {
  readonly placement: Placement;
  readonly group: HaGroupRow | null;
}

/** Places guests against the storages and groups as they were read. */
export interface Placer {
  /** The best of `candidates` for the guest (its own node left out). */
  target(
    row: Pick<GuestRow, 'vmid' | 'type' | 'config' | 'node'>,
    groupName: string | null,
    candidates: readonly Candidate[],
  ): GuestPlacement;
}

/** The placement of HA guests (recovery-target.ts) with what it reads: the groups and the storages of the guests' volumes. */
@Injectable()
export class HaPlacement {
  constructor(
    private readonly groups: HaGroupsRepository,
    private readonly storages: StoragesRepository,
  ) {}

  /** Reads the storages and groups once, for every placement of a round. */
  async load(): Promise<Placer> {
    const storages = new Map((await this.storages.all()).map((storage) => [storage.storage, storage]));
    const groups = new Map((await this.groups.all()).map((group) => [group.group, group]));
    return {
      target: (row, groupName, candidates) => {
        const group = groupName === null ? null : (groups.get(groupName) ?? null);
        const others = candidates.filter((candidate) => candidate.node !== row.node);
        return { placement: recoveryTarget({ storages: guestStorages(row, storages) }, group, others, storages), group };
      },
    };
  }
}
