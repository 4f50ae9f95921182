import { z } from 'zod';
import { endpoint, type Check } from '../../http/endpoint.js';
import { booleanParam, commaListParam, stringParam } from '../../http/params.js';
import { commentParam, expireParam, tokenidParam, useridParam } from '../access-params.js';

/** PVE's `userid-param self` OR `userid-group [User.Modify]`, on every token endpoint. */
export const MANAGE_TOKENS: Check = {
  kind: 'anyOf',
  checks: [
    { kind: 'self', param: 'userid' },
    { kind: 'groups', param: 'userid', privileges: ['User.Modify'] },
  ],
};

export const TokenInfo = z.object({
  privsep: z
    .union([z.literal(0), z.literal(1)])
    .meta({ description: "1: the token's privileges are its own ACL entries intersected with its user's; 0: its user's." }),
  expire: z.number().int().meta({ description: 'Expiry as epoch seconds; 0 means never.' }),
  comment: z.string().optional(),
});

export type TokenInfo = z.infer<typeof TokenInfo>;

export const TokenListEntry = TokenInfo.extend({ tokenid: z.string() });
export type TokenListEntry = z.infer<typeof TokenListEntry>;

export const CreatedToken = z.object({
  'full-tokenid': z.string().meta({ description: '`<userid>!<tokenid>`' }),
  info: TokenInfo,
  value: z
    .string()
    .meta({ description: 'The secret (a lowercase UUID): shown only here. Send `Authorization: PVEAPIToken=<full-tokenid>=<value>`.' }),
});
export type CreatedToken = z.infer<typeof CreatedToken>;

export const UpdatedToken = TokenInfo.extend({
  'full-tokenid': z.string().optional().meta({ description: 'With `regenerate`: `<userid>!<tokenid>`.' }),
  value: z.string().optional().meta({ description: 'With `regenerate`: the new secret, shown only here; the old one no longer works.' }),
});
export type UpdatedToken = z.infer<typeof UpdatedToken>;

const user = { userid: useridParam('The user who owns the tokens, `<name>@<realm>`.') };
const token = { ...user, tokenid: tokenidParam() };
const settings = {
  comment: commentParam().optional(),
  expire: expireParam("Expiry as epoch seconds; 0 means never. Not later than the user's own expiry; by default the same.").optional(),
  privsep: booleanParam({
    description:
      "Separate privileges (default 1): the token gets only what its own ACL entries grant, within its user's privileges; 0: all of its user's.",
  }).optional(),
};

/**
 * The token API in one path form: Corral's (`.../tokens`, created by posting `tokenid` to the
 * collection) or PVE's (`.../token`, created by posting to the token's path).
 */
function tokenEndpoints(form: { readonly segment: 'tokens' | 'token'; readonly createOn: 'collection' | 'item' }) {
  const collection = `/access/users/{userid}/${form.segment}`;
  const item = `${collection}/{tokenid}`;
  return {
    list: endpoint({
      method: 'GET',
      path: collection,
      summary: "List a user's API tokens",
      parameters: z.object(user),
      returns: z.array(TokenListEntry),
      permission: MANAGE_TOKENS,
    }),
    create: endpoint({
      method: 'POST',
      path: form.createOn === 'collection' ? collection : item,
      summary: 'Create an API token; its secret is in the response and nowhere else',
      parameters: z.object({ ...token, ...settings }),
      returns: CreatedToken,
      permission: MANAGE_TOKENS,
    }),
    get: endpoint({
      method: 'GET',
      path: item,
      summary: 'Read an API token',
      parameters: z.object(token),
      returns: TokenInfo,
      permission: MANAGE_TOKENS,
    }),
    update: endpoint({
      method: 'PUT',
      path: item,
      summary: 'Change an API token, or regenerate its secret',
      parameters: z.object({
        ...token,
        ...settings,
        delete: commaListParam(
          stringParam({ description: 'A setting to clear.', pattern: /^comment$/, patternHint: "only 'comment' can be deleted" }),
          'Settings to clear: only `comment`.',
        ).optional(),
        regenerate: booleanParam({
          description: 'Replace the secret: the response carries the new one, and the old one stops working at once.',
        }).optional(),
      }),
      returns: UpdatedToken,
      permission: MANAGE_TOKENS,
    }),
    remove: endpoint({
      method: 'DELETE',
      path: item,
      summary: 'Delete an API token and its ACL entries',
      parameters: z.object(token),
      returns: z.null(),
      permission: MANAGE_TOKENS,
    }),
  };
}

export type TokenEndpoints = ReturnType<typeof tokenEndpoints>;

export const SPEC_TOKEN_ENDPOINTS = tokenEndpoints({ segment: 'tokens', createOn: 'collection' });
export const PVE_TOKEN_ENDPOINTS = tokenEndpoints({ segment: 'token', createOn: 'item' });
