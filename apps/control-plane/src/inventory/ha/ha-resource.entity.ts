import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { GuestRow } from '../guests/guest.entity.js';
import { HaGroupRow } from './ha-group.entity.js';

/** The state a user asks for (`enabled` is taken as `started`, as PVE does). */
export type HaRequestedState = 'started' | 'stopped' | 'disabled' | 'ignored';

/**
 * What the HA manager is doing with the resource (PVE's CRM states): `started` and `stopped` as
 * requested, `request_stop` while a stop is under way, `fence` while its node is lost and its lease
 * has not yet expired, `recovery` from the move to another node until it runs there, `error` once
 * restarts and relocations are used up, `disabled` and `ignored` as requested.
 */
export type HaCrmState = 'started' | 'stopped' | 'request_stop' | 'fence' | 'recovery' | 'error' | 'disabled' | 'ignored';

/** A guest under HA (`/cluster/ha/resources`, sid `vm:100` or `ct:100`); it goes with its guest. */
@Entity({ name: 'ha_resources' })
@Index(['group'])
export class HaResourceRow {
  @PrimaryColumn('integer')
  vmid!: number;

  /** `vm` or `ct`, the sid's prefix. */
  @Column('text')
  type!: 'vm' | 'ct';

  @Column('text', { default: 'started' })
  state!: HaRequestedState;

  @Column('text', { nullable: true })
  group!: string | null;

  @Column('integer', { name: 'max_restart', default: 1 })
  maxRestart!: number;

  @Column('integer', { name: 'max_relocate', default: 1 })
  maxRelocate!: number;

  @Column('text', { nullable: true })
  comment!: string | null;

  @Column('text', { name: 'crm_state', default: 'started' })
  crmState!: HaCrmState;

  /** Failed starts on the current node, against `max_restart`. */
  @Column('integer', { default: 0 })
  restarts!: number;

  /** Moves to another node after failed starts, against `max_relocate`. */
  @Column('integer', { default: 0 })
  relocations!: number;

  @ManyToOne(() => GuestRow, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'vmid' })
  guest?: GuestRow;

  /** A group with resources cannot be removed (409), as PVE refuses. */
  @ManyToOne(() => HaGroupRow, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'group' })
  groupRow?: HaGroupRow;
}
