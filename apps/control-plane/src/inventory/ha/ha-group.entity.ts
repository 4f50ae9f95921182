import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A node of an HA group and its priority (higher first; none counts as 0). */
export interface HaGroupNode {
  readonly node: string;
  readonly priority: number | null;
}

/** PVE's HA group (`/cluster/ha/groups`): the nodes its resources may run on, by priority. */
@Entity({ name: 'ha_groups' })
export class HaGroupRow {
  @PrimaryColumn('text')
  group!: string;

  /** In the order given, as PVE's `nodes` list `node1:2,node2`. */
  @Column('jsonb')
  nodes!: HaGroupNode[];

  /** Resources of the group run only on its nodes (otherwise on any node when none of them is online). */
  @Column('boolean', { default: false })
  restricted!: boolean;

  /** A resource stays where it runs when a node of higher priority comes back. */
  @Column('boolean', { default: false })
  nofailback!: boolean;

  @Column('text', { nullable: true })
  comment!: string | null;
}
