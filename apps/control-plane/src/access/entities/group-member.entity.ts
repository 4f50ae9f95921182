import { Entity, ManyToOne, JoinColumn, PrimaryColumn } from 'typeorm';
import { GroupRow } from './group.entity.js';
import { UserRow } from './user.entity.js';

/** A user's membership of a group; goes with either of them. */
@Entity({ name: 'group_members' })
export class GroupMemberRow {
  @PrimaryColumn('text')
  groupid!: string;

  @PrimaryColumn('text')
  userid!: string;

  @ManyToOne(() => GroupRow, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'groupid' })
  group?: GroupRow;

  @ManyToOne(() => UserRow, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'userid' })
  user?: UserRow;
}
