import { givenKeys, type GivenKeys } from '../config-given.js';
import type { GuestKind } from '../guest-kinds.js';
import { guestRef, type GuestRef } from '../guest-ref.js';

/** The validated parameters of a create, `POST /nodes/{node}/qemu` or `POST /nodes/{node}/lxc`. */
export type CreateParams = Readonly<Record<string, unknown>> & {
  readonly node: string;
  readonly vmid: number;
  readonly pool?: string;
  readonly start?: boolean;
  readonly template?: boolean;
  readonly unique?: boolean;
  readonly 'ha-managed'?: boolean;
  readonly 'live-restore'?: boolean;
  readonly 'import-working-storage'?: string;
  readonly ostemplate?: string;
  readonly password?: string;
  readonly 'ssh-public-keys'?: string;
  readonly 'ignore-unpack-errors'?: boolean;
  readonly storage?: string;
  readonly archive?: string;
  readonly restore?: boolean;
  readonly force?: boolean;
};

/** A create as its parameters ask for it: a new guest of the given config, or a restore (docs/backups.md). */
export interface CreateCommand {
  readonly guest: GuestRef;
  readonly given: GivenKeys;
  /** The pool the new guest goes into. */
  readonly pool?: string;
  /** Start the guest once it is made. */
  readonly start: boolean;
  /** Make it a template once it is made. */
  readonly template: boolean;
  readonly haManaged: boolean;
  readonly liveRestore: boolean;
  readonly importWorkingStorage?: string;
  /** A container's template `<storage>:vztmpl/<file>`, or with `restore` the backup to restore. */
  readonly ostemplate?: string;
  /** A container's root password. */
  readonly password?: string;
  /** A container's public SSH keys for root (not blank). */
  readonly sshPublicKeys?: string;
  readonly ignoreUnpackErrors: boolean;
  /** A container's root file system storage when `rootfs` is absent; a restore's storage. */
  readonly storage?: string;
  /** The backup to restore instead. */
  readonly archive?: string;
  /** A container's `restore`: `ostemplate` is the backup to restore. */
  readonly restore: boolean;
  /** A restore replaces the existing guest. */
  readonly force: boolean;
  /** A restore gives new MAC addresses. */
  readonly unique: boolean;
}

/** The create that a create's validated parameters ask for. */
export function createCommand(kind: GuestKind, params: CreateParams): CreateCommand {
  const sshPublicKeys = params['ssh-public-keys'];
  return {
    guest: guestRef(kind, params),
    given: givenKeys(kind, params),
    pool: params.pool,
    start: params.start === true,
    template: params.template === true,
    haManaged: params['ha-managed'] === true,
    liveRestore: params['live-restore'] === true,
    importWorkingStorage: params['import-working-storage'],
    ostemplate: params.ostemplate,
    password: params.password,
    // Blank keys are none.
    sshPublicKeys: sshPublicKeys !== undefined && sshPublicKeys.trim() !== '' ? sshPublicKeys : undefined,
    ignoreUnpackErrors: params['ignore-unpack-errors'] === true,
    storage: params.storage,
    archive: params.archive,
    restore: params.restore === true,
    force: params.force === true,
    unique: params.unique === true,
  };
}
