import { z } from 'zod';
import { endpoint } from '../http/endpoint.js';
import { integerParam, stringParam } from '../http/params.js';
import { NODE } from '../nodes/nodes.endpoints.js';

export const TaskStatus = z.object({
  upid: z.string(),
  node: z.string(),
  pid: z.number().int(),
  pstart: z.number().int(),
  starttime: z.number().int(),
  type: z.string(),
  id: z.string(),
  user: z.string(),
  status: z.enum(['running', 'stopped']),
  exitstatus: z.string().optional().meta({ description: 'Absent while the task runs; `OK`, or the error text.' }),
  endtime: z.number().int().optional(),
});
export type TaskStatus = z.infer<typeof TaskStatus>;

const TASK = { ...NODE, upid: stringParam({ description: 'The task, `UPID:...:`.', maxLength: 512 }) };

/**
 * The task endpoints of PVE (facts.md 3.2). Every caller may ask; a caller sees its own tasks, and
 * all of a node's with Sys.Audit on `/nodes/{node}` (checked by the service, since it depends on the task).
 */
export const TASKS_ENDPOINTS = {
  list: endpoint({
    method: 'GET',
    path: '/nodes/{node}/tasks',
    summary: "The node's tasks, newest first",
    parameters: z.object({ ...NODE, start: integerParam({ description: 'Skip this many.', min: 0 }).optional(), limit: integerParam({ description: 'At most this many (default 50).', min: 1, max: 10_000 }).optional() }),
    returns: z.array(TaskStatus),
    permission: { kind: 'authenticated' },
  }),
  index: endpoint({
    method: 'GET',
    path: '/nodes/{node}/tasks/{upid}',
    summary: "The task's sub-resources",
    parameters: z.object(TASK),
    returns: z.array(z.object({ name: z.string() })),
    permission: { kind: 'authenticated' },
  }),
  status: endpoint({
    method: 'GET',
    path: '/nodes/{node}/tasks/{upid}/status',
    summary: "The task's state: `exitstatus` appears when it has ended",
    parameters: z.object(TASK),
    returns: TaskStatus,
    permission: { kind: 'authenticated' },
  }),
  log: endpoint({
    method: 'GET',
    path: '/nodes/{node}/tasks/{upid}/log',
    summary: "The task's output lines `{n, t}`, `n` from 1",
    parameters: z.object({ ...TASK, start: integerParam({ description: 'Skip this many lines.', min: 0 }).optional(), limit: integerParam({ description: 'At most this many lines (default 50).', min: 1, max: 1_000_000 }).optional() }),
    returns: z.array(z.object({ n: z.number().int(), t: z.string() })),
    permission: { kind: 'authenticated' },
  }),
};
