import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import { booleanParam, integerParam, stringParam } from '../../http/params.js';
import { nodeParam } from '../../nodes/node-params.js';

export const JOIN_TOKEN_ID = /^[0-9a-f]{16}$/;

export const JoinTokenInfo = z.object({
  id: z.string().meta({ description: "The token's public part: names it for revocation." }),
  expire: z.number().int().meta({ description: 'Expiry as epoch seconds.' }),
  node: z.string().optional().meta({ description: 'The only node name the token joins.' }),
  replace: z.union([z.literal(0), z.literal(1)]).meta({ description: '1: the token may take over the existing node `node`.' }),
  comment: z.string().optional(),
});
export type JoinTokenInfo = z.infer<typeof JoinTokenInfo>;

export const CreatedJoinToken = JoinTokenInfo.extend({
  token: z.string().meta({
    description: 'The token, shown only here: `corral agent join <url> --token <token> --fingerprint <fingerprint>`. Single use.',
  }),
  fingerprint: z.string().meta({ description: "The SHA-256 fingerprint of the control plane's certificate, which the agent pins." }),
});
export type CreatedJoinToken = z.infer<typeof CreatedJoinToken>;

const ADMIN = { kind: 'privileges', path: '/', privileges: ['Sys.Modify'] } as const;

export const JOIN_TOKEN_ENDPOINTS = {
  list: endpoint({
    method: 'GET',
    path: '/cluster/join-tokens',
    summary: 'List the join tokens not yet used, revoked or expired',
    parameters: z.object({}),
    returns: z.array(JoinTokenInfo),
    permission: { kind: 'privileges', path: '/', privileges: ['Sys.Audit'] },
  }),
  create: endpoint({
    method: 'POST',
    path: '/cluster/join-tokens',
    summary: 'Create a single-use token that joins one agent to the cluster',
    parameters: z.object({
      ttl: integerParam({ description: 'Lifetime in seconds (default 900).', min: 60, max: 86_400 }).optional(),
      node: nodeParam('The only node name the token may join (default: any name not yet joined).').optional(),
      replace: booleanParam({
        description: 'Consent to take over the existing node `node`: its agent must re-join after a reinstall. Needs `node`.',
      }).optional(),
      comment: stringParam({ description: 'A free-form comment.', maxLength: 4096 }).optional(),
    }),
    returns: CreatedJoinToken,
    permission: ADMIN,
  }),
  remove: endpoint({
    method: 'DELETE',
    path: '/cluster/join-tokens/{id}',
    summary: 'Revoke a join token',
    parameters: z.object({
      id: stringParam({ description: "The token's id.", pattern: JOIN_TOKEN_ID, patternHint: 'must be 16 hexadecimal digits' }),
    }),
    returns: z.null(),
    permission: ADMIN,
  }),
};
