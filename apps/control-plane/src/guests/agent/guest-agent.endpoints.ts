import { z } from 'zod';
import type { QgaCommand } from '@corral/protocol';
import { endpoint, type Check } from '../../http/endpoint.js';
import { integerParam, listParam, stringParam } from '../../http/params.js';
import { GUEST } from '../guest.endpoints.js';

type GuestAgentPrivilege = 'VM.GuestAgent.Audit' | 'VM.GuestAgent.FileSystemMgmt' | 'VM.PowerMgmt' | 'VM.GuestAgent.Unrestricted';
/** PVE 9's checks: the command's privilege, or VM.GuestAgent.Unrestricted, which allows every command. */
const on = (...privileges: GuestAgentPrivilege[]): Check => ({
  kind: 'privileges',
  path: '/vms/{vmid}',
  privileges: ['VM.GuestAgent.Unrestricted', ...privileges],
  any: true,
});
const AUDIT = on('VM.GuestAgent.Audit');
const FILE_SYSTEMS = on('VM.GuestAgent.FileSystemMgmt');
const UNRESTRICTED = on();

/** PVE's answer of the guest agent commands: QGA's return value under `result`. */
const Result = z.object({ result: z.unknown().meta({ description: "The guest agent's return value, as QGA gives it." }) });

/** The commands without arguments, by the name of PVE's endpoint (QGA's without `guest-`), with PVE's method and check. */
export const SIMPLE_COMMANDS = {
  ping: { method: 'POST', check: AUDIT },
  info: { method: 'GET', check: AUDIT },
  'get-osinfo': { method: 'GET', check: AUDIT },
  'get-host-name': { method: 'GET', check: AUDIT },
  'get-time': { method: 'GET', check: AUDIT },
  'get-timezone': { method: 'GET', check: AUDIT },
  'get-users': { method: 'GET', check: AUDIT },
  'get-vcpus': { method: 'GET', check: AUDIT },
  'get-fsinfo': { method: 'GET', check: AUDIT },
  'network-get-interfaces': { method: 'GET', check: AUDIT },
  'fsfreeze-status': { method: 'POST', check: on('VM.GuestAgent.Audit', 'VM.GuestAgent.FileSystemMgmt') },
  'fsfreeze-freeze': { method: 'POST', check: FILE_SYSTEMS },
  'fsfreeze-thaw': { method: 'POST', check: FILE_SYSTEMS },
  fstrim: { method: 'POST', check: FILE_SYSTEMS },
  shutdown: { method: 'POST', check: on('VM.PowerMgmt') },
} as const satisfies Record<string, { method: 'GET' | 'POST'; check: Check }>;
export type SimpleCommand = keyof typeof SIMPLE_COMMANDS;
const SIMPLE_NAMES = Object.keys(SIMPLE_COMMANDS) as [SimpleCommand, ...SimpleCommand[]];

export function qgaName(command: SimpleCommand): QgaCommand {
  return `guest-${command}`;
}

const simple = (command: SimpleCommand) =>
  endpoint({
    method: SIMPLE_COMMANDS[command].method,
    path: `/nodes/{node}/qemu/{vmid}/agent/${command}`,
    summary: `Run the guest agent's ${qgaName(command)} in the running VM`,
    parameters: z.object(GUEST),
    returns: Result,
    permission: SIMPLE_COMMANDS[command].check,
  });

/** `/nodes/{node}/qemu/{vmid}/agent/...` (docs/guests.md "Guest agent"). */
export const GUEST_AGENT_ENDPOINTS = {
  index: endpoint({
    method: 'GET',
    path: '/nodes/{node}/qemu/{vmid}/agent',
    summary: 'The guest agent commands Corral runs',
    parameters: z.object(GUEST),
    returns: z.array(z.object({ name: z.string() })),
    permission: { kind: 'authenticated' },
  }),
  command: endpoint({
    method: 'POST',
    path: '/nodes/{node}/qemu/{vmid}/agent',
    summary: 'Run a guest agent command named by `command` (the older form of the endpoints below)',
    parameters: z.object({ ...GUEST, command: z.enum(SIMPLE_NAMES).meta({ description: 'The QGA command.' }) }),
    returns: Result,
    permission: UNRESTRICTED,
  }),
  ping: simple('ping'),
  info: simple('info'),
  getOsinfo: simple('get-osinfo'),
  getHostName: simple('get-host-name'),
  getTime: simple('get-time'),
  getTimezone: simple('get-timezone'),
  getUsers: simple('get-users'),
  getVcpus: simple('get-vcpus'),
  getFsinfo: simple('get-fsinfo'),
  networkGetInterfaces: simple('network-get-interfaces'),
  fsfreezeStatus: simple('fsfreeze-status'),
  fsfreezeFreeze: simple('fsfreeze-freeze'),
  fsfreezeThaw: simple('fsfreeze-thaw'),
  fstrim: simple('fstrim'),
  shutdown: simple('shutdown'),
  exec: endpoint({
    method: 'POST',
    path: '/nodes/{node}/qemu/{vmid}/agent/exec',
    summary: 'Start a program in the VM through the guest agent; answers its pid for exec-status',
    parameters: z.object({
      ...GUEST,
      command: listParam(stringParam({ description: 'A single part of the program + arguments.', maxLength: 65_536 }), {
        description: 'The command as a list of program + arguments.',
      }),
      'input-data': stringParam({
        description: "Data to pass as 'input-data' to the guest. Usually treated as STDIN to 'command'.",
        maxLength: 65_536,
      }).optional(),
    }),
    returns: z.object({ pid: z.number().int().meta({ description: 'The PID of the process started by the guest-agent.' }) }),
    permission: UNRESTRICTED,
  }),
  execStatus: endpoint({
    method: 'GET',
    path: '/nodes/{node}/qemu/{vmid}/agent/exec-status',
    summary: 'The state of a program exec started: its exit code and output once it exited',
    parameters: z.object({ ...GUEST, pid: integerParam({ description: 'The PID to query', min: 0 }) }),
    returns: z.object({
      exited: z.union([z.literal(0), z.literal(1)]).meta({ description: 'Tells if the given command has exited yet.' }),
      exitcode: z.number().int().optional(),
      signal: z.number().int().optional(),
      'out-data': z.string().optional(),
      'err-data': z.string().optional(),
      'out-truncated': z.union([z.literal(0), z.literal(1)]).optional(),
      'err-truncated': z.union([z.literal(0), z.literal(1)]).optional(),
    }),
    permission: UNRESTRICTED,
  }),
};
