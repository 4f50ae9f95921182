import { z } from 'zod';
import type { Check } from '../../http/endpoint.js';
import { configIdParam } from '../../http/params.js';

/*
 * What the notification endpoints share (PVE's `/cluster/notifications`): their
 * permissions, as PVE's schema has them, the names of targets and matchers, and their `origin`.
 */

const NOTIFICATIONS = '/mapping/notifications';

export const MAY_MODIFY: Check = { kind: 'privileges', path: NOTIFICATIONS, privileges: ['Mapping.Modify'] };
/** PVE's lists of webhooks: Mapping.Audit alone. */
export const MAY_AUDIT: Check = { kind: 'privileges', path: NOTIFICATIONS, privileges: ['Mapping.Audit'] };
/** PVE's reads of one entry: Mapping.Modify or Mapping.Audit. */
export const MAY_READ: Check = { kind: 'privileges', path: NOTIFICATIONS, privileges: ['Mapping.Modify', 'Mapping.Audit'], any: true };
/** PVE's lists of targets and matchers: Mapping.Use suffices too. */
export const MAY_USE: Check = {
  kind: 'privileges',
  path: NOTIFICATIONS,
  privileges: ['Mapping.Modify', 'Mapping.Audit', 'Mapping.Use'],
  any: true,
};
/** Making or changing a target sends requests from the control plane's network: PVE wants Sys.Audit and Sys.Modify, or Sys.AccessNetwork, on `/` besides. */
export const MAY_WRITE_TARGET: Check = {
  kind: 'allOf',
  checks: [
    MAY_MODIFY,
    {
      kind: 'anyOf',
      checks: [
        { kind: 'privileges', path: '/', privileges: ['Sys.Audit', 'Sys.Modify'] },
        { kind: 'privileges', path: '/', privileges: ['Sys.AccessNetwork'] },
      ],
    },
  ],
};

/** PVE's `pve-configid`. */
export const notificationNameParam = configIdParam;

/** PVE's `origin`: every Corral target and matcher is made by a user; there are no built-in ones. */
export const Origin = z.literal('user-created');
