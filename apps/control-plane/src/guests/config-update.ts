import { givenKeys, type GivenKeys } from './config-given.js';
import type { GuestKind } from './guest-kinds.js';
import { guestRef, type GuestRef } from './guest-ref.js';

/** A config change as `PUT`/`POST .../config` asks for it. */
export interface ConfigUpdate {
  readonly guest: GuestRef;
  readonly given: GivenKeys;
  /** The keys to remove: each `delete` entry split at its commas, semicolons and spaces (without `lock`). */
  readonly deleted: readonly string[];
  /** Whether the guest's lock is ignored (`skiplock`, root@pam only). */
  readonly skiplock: boolean;
  /** Whether the guest's lock is removed (`delete=lock`, with `skiplock`): PVE's `qm unlock`. */
  readonly unlock: boolean;
  /** The `digest` of the config the change is based on. */
  readonly digest?: string | undefined;
}

/** The change that the validated parameters of `PUT`/`POST .../config` ask for. */
export function configUpdate(
  kind: GuestKind,
  params: Readonly<Record<string, unknown>> & {
    readonly node: string;
    readonly vmid: number;
    readonly delete?: readonly string[] | undefined;
    readonly skiplock?: boolean | undefined;
    readonly digest?: string | undefined;
  },
): ConfigUpdate {
  const deleted = (params.delete ?? []).flatMap((entry) => entry.split(/[,;\s]+/)).filter((key) => key !== '');
  return {
    guest: guestRef(kind, params),
    given: givenKeys(kind, params),
    deleted: deleted.filter((key) => key !== 'lock'),
    skiplock: params.skiplock === true,
    unlock: deleted.includes('lock'),
    digest: params.digest,
  };
}
