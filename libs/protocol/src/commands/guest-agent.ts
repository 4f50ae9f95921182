import { z } from 'zod';
import { Vmid } from '../fields.js';
import type { CommandDefinition } from '../command-definition.js';

/**
 * The QEMU guest agent commands (QGA, `qemu-ga` in the guest) an agent relays: reads, the file
 * system freeze, shutdown, and running a program. Nothing else reaches a guest agent, so the
 * control plane cannot be made to send `guest-file-write` or `guest-set-user-password` through it.
 */
export const QGA_COMMANDS = [
  'guest-ping',
  'guest-info',
  'guest-get-osinfo',
  'guest-get-host-name',
  'guest-get-time',
  'guest-get-timezone',
  'guest-get-users',
  'guest-get-vcpus',
  'guest-get-fsinfo',
  'guest-network-get-interfaces',
  'guest-fsfreeze-status',
  'guest-fsfreeze-freeze',
  'guest-fsfreeze-thaw',
  'guest-fstrim',
  'guest-shutdown',
  'guest-exec',
  'guest-exec-status',
] as const;
export const QgaCommand = z.enum(QGA_COMMANDS);
export type QgaCommand = z.infer<typeof QgaCommand>;

/** `guest-exec`'s arguments: the program and its arguments (an argument vector), its standard input base64-encoded, output captured. */
export const QgaExecArguments = z.strictObject({
  path: z.string().min(1).max(4096),
  arg: z.array(z.string().max(65_536)).max(1024),
  'input-data': z.base64().max(90_000).optional(),
  'capture-output': z.literal(true),
});

/** `guest-exec-status`'s argument: the pid `guest-exec` answered. */
export const QgaExecStatusArguments = z.strictObject({ pid: z.int().min(0) });

const ARGUMENTS_OF: Partial<Record<QgaCommand, z.ZodType>> = {
  'guest-exec': QgaExecArguments,
  'guest-exec-status': QgaExecStatusArguments,
};

export const guestAgentCommand = {
  description:
    "QEMU only: run one QEMU guest agent command in the running VM over its virtio-serial channel (`org.qemu.guest_agent.0`) and return QGA's `return` value unchanged (`guest-exec-status` output still base64). `arguments` only for `guest-exec` and `guest-exec-status`. Without a guest agent answering, fails `unavailable` with PVE's text `QEMU guest agent is not running`; a guest agent's own error fails `failed` with `Agent error: <its description>`. `guest-shutdown` answers null once sent (QGA sends no reply to it).",
  params: z
    .strictObject({ vmid: Vmid, command: QgaCommand, arguments: z.union([QgaExecArguments, QgaExecStatusArguments]).optional() })
    .superRefine((params, context) => {
      const schema = ARGUMENTS_OF[params.command];
      if (schema === undefined && params.arguments !== undefined)
        context.addIssue({ code: 'custom', path: ['arguments'], message: `${params.command} takes no arguments` });
      if (schema !== undefined && !schema.safeParse(params.arguments).success)
        context.addIssue({ code: 'custom', path: ['arguments'], message: `must be the arguments of ${params.command}` });
    }),
  result: z.unknown(),
} satisfies CommandDefinition;
