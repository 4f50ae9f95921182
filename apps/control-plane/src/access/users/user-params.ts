import { booleanParam, commaListParam, stringParam } from '../../http/params.js';
import { commentParam, expireParam, groupidParam } from '../access-params.js';

/** The user fields `POST /access/users` and `PUT /access/users/{userid}` share, in PVE's formats. */

// PVE's `email-opt`: an address, or empty (which clears the field on update).
const EMAIL = /^(?:[\w+~-]+(?:\.[\w+~-]+)*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)?$/;
const KEYS = /^[0-9a-zA-Z!=]{0,4096}$/;

export const userFieldParams = {
  email: stringParam({
    description: 'E-mail address.',
    maxLength: 254,
    pattern: EMAIL,
    patternHint: 'must be an e-mail address',
  }).optional(),
  firstname: stringParam({ description: 'First name.', maxLength: 1024 }).optional(),
  lastname: stringParam({ description: 'Last name.', maxLength: 1024 }).optional(),
  comment: commentParam().optional(),
  keys: stringParam({
    description: 'Two-factor keys (yubico), kept for PVE clients; not used to authenticate.',
    pattern: KEYS,
    patternHint: 'must be up to 4096 letters, digits, ! or =',
  }).optional(),
  enable: booleanParam({ description: 'Whether the account may authenticate (default 1).' }).optional(),
  expire: expireParam('Account expiry as epoch seconds; 0 means never.').optional(),
  groups: commaListParam(groupidParam(), 'Groups of the user: a comma-separated list, or the key repeated.').optional(),
};

/** The free-text fields: an empty value (PVE's way) or `delete` clears them. */
export const TEXT_FIELDS = ['email', 'firstname', 'lastname', 'comment', 'keys'] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

export const passwordParam = (description: string) => stringParam({ description, minLength: 8, maxLength: 64 });
