import { z } from 'zod';
import { endpoint } from '../../http/endpoint.js';
import { stringParam } from '../../http/params.js';
import { REALM_PATTERN } from '../access-params.js';

export const Ticket = z.object({
  username: z.string().meta({ description: 'The user, `<name>@<realm>`.' }),
  ticket: z.string().optional().meta({
    description:
      'Send it as the `PVEAuthCookie` cookie (or `Authorization: PVEAuthCookie=<ticket>`); valid for 2 hours, renewed by posting it as the password.',
  }),
  CSRFPreventionToken: z
    .string()
    .optional()
    .meta({ description: 'Send it as the `CSRFPreventionToken` header on every request that is not a GET.' }),
  cap: z
    .record(z.string(), z.record(z.string(), z.literal(1)))
    .optional()
    .meta({ description: "What the user may do, per area (PVE's GUI summary)." }),
  clustername: z.string().optional().meta({ description: 'The cluster name, for users with Sys.Audit on `/`.' }),
});

// PVE's form, or HTTP Basic credentials.
export const createTicket = endpoint({
  method: 'POST',
  path: '/access/ticket',
  summary: 'Log in: create (or renew) a ticket',
  description:
    'Credentials are `username` and `password` (with an optional `realm`), or HTTP Basic credentials. A current ticket as `password` renews it. The response also sets the `PVEAuthCookie` cookie. Failed logins are throttled per user and client address (429).',
  parameters: z.object({
    username: stringParam({ description: 'The user, `<name>@<realm>`, or `<name>` with `realm`.', maxLength: 64 }).optional(),
    password: stringParam({ description: 'The password, or a current ticket to renew it.', maxLength: 4096 }).optional(),
    realm: stringParam({
      description: 'Appended to `username` as `@<realm>`.',
      pattern: REALM_PATTERN,
      patternHint: 'must be a realm name',
    }).optional(),
    path: stringParam({ description: 'Verify only: the ACL path to check `privs` on (needs `privs`).', maxLength: 64 }).optional(),
    privs: stringParam({
      description: 'Verify only: privileges, comma separated, the user must hold on `path`.',
      maxLength: 64,
    }).optional(),
    otp: stringParam({
      description: 'One-time password: two-factor authentication is not built yet, and a login that sends one is refused.',
    }).optional(),
    'new-format': z.unknown().optional().meta({ description: 'Ignored, as in PVE.' }),
  }),
  returns: Ticket,
  permission: { kind: 'public' },
});

export const getTicket = endpoint({
  method: 'GET',
  path: '/access/ticket',
  summary: 'Does nothing (PVE answers null here; the GUI asks it)',
  parameters: z.object({}),
  returns: z.null(),
  permission: { kind: 'public' },
});

/** Corral's logout for browsers: the ticket cookie is HttpOnly, so only the server can clear it. PVE has no such call; its interface forgets the cookie itself. */
export const deleteTicket = endpoint({
  method: 'DELETE',
  path: '/access/ticket',
  summary: "Log out: clears the ticket cookie (Corral's own; tickets stay valid until they expire, as in PVE)",
  parameters: z.object({}),
  returns: z.null(),
  permission: { kind: 'public' },
});
