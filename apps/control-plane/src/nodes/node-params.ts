import { NODE_NAME_HINT, NODE_NAME_PATTERN } from '@corral/protocol';
import { stringParam } from '../http/params.js';

/** A node name (PVE's `pve-node`: one DNS label). */
export const nodeParam = (description = 'The node.') =>
  stringParam({ description, pattern: NODE_NAME_PATTERN, patternHint: NODE_NAME_HINT });
