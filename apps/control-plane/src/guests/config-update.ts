import { givenKeys, type GivenKeys } from './config-given.js';
import type { GuestKind } from './guest-kinds.js';
import { guestRef, type GuestRef } from './guest-ref.js';

/** A config change as `PUT`/`POST .../config` asks for it. */
export interface ConfigUpdate {
  readonly guest: GuestRef;
  readonly given: GivenKeys;
  /** The keys to remove: each `delete` entry split at its commas, semicolons and spaces. */
  readonly deleted: readonly string[];
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
    readonly digest?: string | undefined;
  },
): ConfigUpdate {
  return {
    guest: guestRef(kind, params),
    given: givenKeys(kind, params),
    deleted: (params.delete ?? []).flatMap((entry) => entry.split(/[,;\s]+/)).filter((key) => key !== ''),
    digest: params.digest,
  };
}
