import { ContentKind } from '@corral/protocol';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** What a storage may hold (PVE's `content` kinds). */
export const CONTENT_KINDS = ContentKind.options;
export type { ContentKind };

/**
 * A storage definition, as PVE's `/etc/pve/storage.cfg` entries: the same on every node unless
 * `nodes` names some (docs/storage.md). Only directory storages exist; the migration creates
 * `local` at `/var/lib/vz` as a PVE install does.
 */
@Entity({ name: 'storages' })
export class StorageRow {
  @PrimaryColumn('text')
  storage!: string;

  /** `dir`: volumes are files under `path` (PVE's directory layout: images/<vmid>/, template/cache/, template/iso/, dump/). */
  @Column('text')
  type!: 'dir';

  @Column('text')
  path!: string;

  @Column('text', { array: true })
  content!: ContentKind[];

  /** Null: every node; else only these. */
  @Column('text', { array: true, nullable: true })
  nodes!: string[] | null;

  @Column('boolean', { default: false })
  shared!: boolean;

  @Column('boolean', { default: false })
  disable!: boolean;

  /** PVE's `prune-backups` retention as given (`keep-last=3,keep-weekly=2`); null: keep every backup. */
  @Column('text', { name: 'prune_backups', nullable: true })
  pruneBackups!: string | null;

  /** PVE's `is_mountpoint` (Corral's `is-rootdir`): the path must be a mounted file system, else the storage is inactive on that node. */
  @Column('boolean', { name: 'is_mountpoint', default: false })
  isMountpoint!: boolean;
}
