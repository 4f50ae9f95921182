import { integerParam, stringParam } from '../http/params.js';

/** Parameters and errors shared by the access API. */

const NAME = '[A-Za-z][A-Za-z0-9._-]+';
export const REALM_PATTERN = new RegExp(`^${NAME}$`);
export const USERID_PATTERN = new RegExp(`^[^\\s:/@!=]{1,60}@${NAME}$`);
export const TOKENID_PATTERN = REALM_PATTERN;
export const GROUPID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const ROLEID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** The realm of a user id `<name>@<realm>`. */
export function realmOf(userid: string): string {
  return userid.slice(userid.lastIndexOf('@') + 1);
}

export const useridParam = (description = 'The user, `<name>@<realm>`.') =>
  stringParam({ description, maxLength: 64, pattern: USERID_PATTERN, patternHint: "must be '<name>@<realm>'" });

export const tokenidParam = (description = 'The token name: a letter, then letters, digits, `.`, `_` or `-`.') =>
  stringParam({
    description,
    maxLength: 64,
    pattern: TOKENID_PATTERN,
    patternHint: 'must be a letter followed by letters, digits, ., _ or -',
  });

export const groupidParam = (description = 'The group.') =>
  stringParam({ description, pattern: GROUPID_PATTERN, patternHint: 'must be 1 to 64 letters, digits, ., _ or -' });

export const roleidParam = (description = 'The role.') =>
  stringParam({ description, pattern: ROLEID_PATTERN, patternHint: 'must be 1 to 64 letters, digits, ., _ or -' });

export const commentParam = () => stringParam({ description: 'A free-form comment.', maxLength: 4096 });

/** Epoch seconds; 0 = never (PVE's `expire`). */
export const expireParam = (description = 'Expiry as epoch seconds; 0 means never.') => integerParam({ description, min: 0 });
