import { Column, Entity, PrimaryColumn } from 'typeorm';

/** What a storage may hold (PVE's `content` kinds). */
export const CONTENT_KINDS = ['images', 'rootdir', 'vztmpl', 'iso', 'backup', 'snippets'] as const;
export type ContentKind = (typeof CONTENT_KINDS)[number];

/**
 * A storage definition, as PVE's `/etc/pve/storage.cfg` entries: the same on every node unless
 * `nodes` names some. Only directory storages exist so far; the migration creates `local` at
 * `/var/lib/vz` as a PVE install does. Their API (`/storage`) is issue 6's.
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
}
