import { defineCommand } from '../command-line/command.js';
import { expireEpoch } from '../command-line/expire-date.js';
import { flagValue } from '../command-line/option-values.js';

// PVE's token paths.
const tokensOf = (userid: string) => `/access/users/${encodeURIComponent(userid)}/token`;
const tokenPath = (userid: string, tokenid: string) => `${tokensOf(userid)}/${encodeURIComponent(tokenid)}`;

const SHOWN_ONCE = 'The secret ("value") is shown only this once: store it now. Use it as CORRAL_TOKEN=<full-tokenid>=<value>.';

const createToken = defineCommand({
  name: 'token create',
  summary: 'Create an API token; its secret is shown only once',
  positionals: ['userid', 'tokenid'],
  options: {
    expire: { value: 'YYYY-MM-DD', description: "valid through this day (UTC); by default as long as the user's account" },
    privsep: {
      value: '0|1',
      description:
        "1 (default): only what the token's own ACL entries grant, within the user's privileges; 0: all of the user's privileges",
    },
    comment: { value: 'TEXT', description: 'a note on what the token is for' },
  },
  notice: SHOWN_ONCE,
  call: ({ userid, tokenid, expire, privsep, comment }) => ({
    method: 'POST',
    path: tokenPath(userid, tokenid),
    params: { expire: expire === undefined ? undefined : String(expireEpoch(expire)), privsep: flagValue('privsep', privsep), comment },
  }),
});

const listTokens = defineCommand({
  name: 'token list',
  summary: "List a user's API tokens",
  positionals: ['userid'],
  options: {},
  call: ({ userid }) => ({ method: 'GET', path: tokensOf(userid), params: {} }),
});

const removeToken = defineCommand({
  name: 'token remove',
  summary: 'Delete an API token (and its ACL entries)',
  positionals: ['userid', 'tokenid'],
  options: {},
  call: ({ userid, tokenid }) => ({ method: 'DELETE', path: tokenPath(userid, tokenid), params: {} }),
});

const regenerateToken = defineCommand({
  name: 'token regenerate',
  summary: 'Replace the secret of an API token: the old one stops working, the new one is shown only once',
  positionals: ['userid', 'tokenid'],
  options: {},
  notice: SHOWN_ONCE,
  call: ({ userid, tokenid }) => ({ method: 'PUT', path: tokenPath(userid, tokenid), params: { regenerate: '1' } }),
});

export const TOKEN_COMMANDS = [createToken, listTokens, removeToken, regenerateToken];
