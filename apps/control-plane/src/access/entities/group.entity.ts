import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'groups' })
export class GroupRow {
  @PrimaryColumn('text')
  groupid!: string;

  @Column('text', { nullable: true })
  comment!: string | null;
}
