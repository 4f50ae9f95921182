import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import { stringParam } from '../../http/params.js';
import { nodeParam } from '../../nodes/node-params.js';

export const JOIN_ENDPOINT = endpoint({
  method: 'POST',
  path: '/cluster/join',
  summary: "Trade a join token for a node's agent credential (`corral agent join` calls this)",
  description:
    'No other credentials: the single-use join token is the authentication. A node name that is already joined needs a token created for it with `replace=1`. ' +
    'The join is recorded as a `cluster-join` event.',
  parameters: z.object({
    token: stringParam({ description: 'The join token, `<id>.<secret>`.', maxLength: 128 }),
    node: nodeParam('The name the node joins as (usually its host name).'),
  }),
  returns: z.object({
    node: z.string(),
    credential: z.string().meta({
      description: "The agent's credential, shown only here: `Authorization: CorralNode <node>:<credential>` on `wss://.../agent/v1`.",
    }),
    urls: z.array(z.string()).meta({
      description: "Where the control plane's replicas are reached: the agent tries them when the URL it joined through does not answer.",
    }),
  }),
  permission: { kind: 'public' },
});
