import { stringParam } from '../http/params.js';
import { TOKENID_PATTERN, USERID_PATTERN } from './access-params.js';

/** `<userid>!<tokenid>`: how credentials, ACL entries and messages name a token. */
export function fullTokenid(userid: string, tokenid: string): string {
  return `${userid}!${tokenid}`;
}

/** The owner and the token name of a full token id. */
export function splitFullTokenid(full: string): { userid: string; tokenid: string } {
  const split = full.lastIndexOf('!');
  return { userid: full.slice(0, split), tokenid: full.slice(split + 1) };
}

/**
 * A full API token id as PVE writes it, `user@realm!tokenid`; Corral's `user@realm=tokenid`
 * names the same token. Null when the text is neither.
 */
export function parseFullTokenid(text: string): string | null {
  const split = Math.max(text.lastIndexOf('!'), text.lastIndexOf('='));
  if (split < 0) return null;
  const userid = text.slice(0, split);
  const tokenid = text.slice(split + 1);
  return USERID_PATTERN.test(userid) && TOKENID_PATTERN.test(tokenid) ? fullTokenid(userid, tokenid) : null;
}

/**
 * A full token id (with `orUser`, a user id too), normalised to `user@realm!tokenid`; `overwrite`
 * rather than `transform` keeps it a plain string in the OpenAPI document.
 */
export function fullTokenidParam(description: string, options: { orUser?: boolean } = {}) {
  const valid = (text: string) => parseFullTokenid(text) !== null || (options.orUser === true && USERID_PATTERN.test(text));
  return stringParam({ description, maxLength: 128 })
    .refine(valid, options.orUser ? "must be '<user>@<realm>' or '<user>@<realm>!<tokenid>'" : "must be '<user>@<realm>!<tokenid>'")
    .overwrite((text) => parseFullTokenid(text) ?? text)
    .meta({ description });
}
