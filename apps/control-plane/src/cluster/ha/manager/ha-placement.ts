import { Injectable } from '@nestjs/common';
import type { GuestRow } from '../../../guests/guest.entity.js';
import { StoragesRepository } from '../../../storage/storages.repository.js';
import type { HaGroupRow } from '../ha-group.entity.js';
import { HaGroupsRepository } from '../ha-groups.repository.js';
import { guestStorages, recoveryTarget, type Candidate, type Placement } from './recovery-target.js';

/** Where the HA manager would put a guest now, and the group that decided it. */
export interface GuestPlacement {
  readonly placement: Placement;
  readonly group: HaGroupRow | null;
}

/** The placement of HA guests (recovery-target.ts) with what it reads: the guest's group and the storages of its volumes. */
@Injectable()
export class HaPlacement {
  constructor(
    private readonly groups: HaGroupsRepository,
    private readonly storages: StoragesRepository,
  ) {}

  /** The best of `candidates` for the guest (its own node left out). */
  async target(row: Pick<GuestRow, 'vmid' | 'type' | 'config' | 'node'>, groupName: string | null, candidates: readonly Candidate[]): Promise<GuestPlacement> {
    const storages = new Map((await this.storages.all()).map((storage) => [storage.storage, storage]));
    const group = groupName === null ? null : await this.groups.find(groupName);
    const others = candidates.filter((candidate) => candidate.node !== row.node);
    return { placement: recoveryTarget({ storages: guestStorages(row, storages) }, group, others, storages), group };
  }
}
