import { defineCommand } from '../command-line/command.js';
import { secondsValue } from '../command-line/option-values.js';
import { UsageError } from '../command-line/usage-error.js';

const TOKENS = '/cluster/join-tokens';

const createJoinToken = defineCommand({
  name: 'cluster join-token create',
  summary: 'Create a single-use token with which one host joins the cluster as a node; it is shown only once',
  positionals: [],
  options: {
    ttl: { value: 'SECONDS', description: 'how long the token is valid, 60 to 86400 (default 900)' },
    node: { value: 'NAME', description: 'the only node name the token may join as' },
    replace: { value: '', description: 'with --node: the host may take over the existing node of that name (re-joining it)' },
    comment: { value: 'TEXT', description: 'a note on what the token is for' },
  },
  notice:
    "The token is shown only this once and works once. On the host to join, run 'corral agent join <url> --token <token> --fingerprint <fingerprint>'.",
  call: ({ ttl, node, replace, comment }) => {
    if (replace !== undefined && node === undefined) throw new UsageError('--replace needs --node: the node the host takes over');
    return { method: 'POST', path: TOKENS, params: { ttl: secondsValue('ttl', ttl), node, replace, comment } };
  },
});

const listJoinTokens = defineCommand({
  name: 'cluster join-token list',
  summary: 'List the join tokens not used yet (without their secrets)',
  positionals: [],
  options: {},
  call: () => ({ method: 'GET', path: TOKENS, params: {} }),
});

const removeJoinToken = defineCommand({
  name: 'cluster join-token remove',
  summary: 'Revoke a join token before it is used',
  positionals: ['id'],
  options: {},
  call: ({ id }) => ({ method: 'DELETE', path: `${TOKENS}/${encodeURIComponent(id)}`, params: {} }),
});

export const JOIN_TOKEN_COMMANDS = [createJoinToken, listJoinTokens, removeJoinToken];
