import { stringParam } from '../../http/params.js';

// PVE's pve-poolid, flat: PVE 8's nested `a/b` pools are not supported (docs/pools.md).
const POOLID_PATTERN = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;

export const poolidParam = () =>
  stringParam({
    description: 'The pool: a letter, then letters, digits, `.`, `_` or `-`.',
    pattern: POOLID_PATTERN,
    patternHint: "must be a letter followed by at most 63 letters, digits, '.', '_' or '-' (nested pools 'a/b' are not supported)",
  });
