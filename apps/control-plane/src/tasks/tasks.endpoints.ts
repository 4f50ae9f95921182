import { z } from 'zod';
import { endpoint } from '../http/endpoint.js';
import { booleanParam, integerParam, stringParam } from '../http/params.js';
import { NODE } from '../nodes/nodes.endpoints.js';

/** A task's identity as PVE shows it: the UPID's fields, with a token's tasks split into its owner (`user`) and `tokenid`. */
const TASK_FIELDS = {
  upid: z.string(),
  node: z.string(),
  pid: z.number().int(),
  pstart: z.number().int(),
  starttime: z.number().int(),
  type: z.string(),
  id: z.string(),
  user: z.string().meta({ description: 'The user who started it; for an API token, its owner.' }),
  tokenid: z.string().optional().meta({ description: 'The API token that started it, without its owner.' }),
};

export const TaskStatus = z.object({
  ...TASK_FIELDS,
  status: z.enum(['running', 'stopped']),
  exitstatus: z.string().optional().meta({ description: 'Absent while the task runs; `OK`, or the error text.' }),
  endtime: z.number().int().optional(),
});
export type TaskStatus = z.infer<typeof TaskStatus>;

export const TaskEntry = z.object({
  ...TASK_FIELDS,
  status: z.string().optional().meta({ description: "How it ended (`OK`, or the error text); `RUNNING` in a node's list while it runs." }),
  endtime: z.number().int().optional(),
});
export type TaskEntry = z.infer<typeof TaskEntry>;

export const TASK_SOURCES = ['archive', 'active', 'all'] as const;
export const TASK_STATUS_CLASSES = ['ok', 'warning', 'error', 'unknown'] as const;

/** The longest `?wait=` of a status read, in seconds. */
export const MAX_WAIT_S = 300;

const TASK = { ...NODE, upid: stringParam({ description: 'The task, `UPID:...:`.', maxLength: 512 }) };

/**
 * The task endpoints of PVE. Every caller may ask; a caller sees its own tasks, and
 * all of a node's with Sys.Audit on `/nodes/{node}` (checked by the service, since it depends on the task).
 */
export const TASKS_ENDPOINTS = {
  list: endpoint({
    method: 'GET',
    path: '/nodes/{node}/tasks',
    summary: "The node's tasks, newest first: finished ones unless `source` says otherwise",
    parameters: z.object({
      ...NODE,
      start: integerParam({ description: 'Skip this many.', min: 0 }).optional(),
      limit: integerParam({ description: 'At most this many (default 50).', min: 1, max: 10_000 }).optional(),
      vmid: integerParam({ description: 'Only the tasks of this guest.', min: 100, max: 999_999_999 }).optional(),
      typefilter: stringParam({ description: 'Only tasks of this type (`qmstart`, `vzdump`, ...).', maxLength: 64 }).optional(),
      userfilter: stringParam({ description: 'Only tasks of users whose name contains this.', maxLength: 128 }).optional(),
      errors: booleanParam({ description: 'Only tasks that did not end `OK`.' }).optional(),
      source: z
        .enum(TASK_SOURCES)
        .optional()
        .meta({ description: 'Finished tasks (`archive`, the default), running ones (`active`), or both (`all`).' }),
      since: integerParam({ description: 'Only tasks started at or after this epoch second.', min: 0 }).optional(),
      until: integerParam({ description: 'Only tasks started at or before this epoch second.', min: 0 }).optional(),
      statusfilter: z
        .preprocess(
          (value) => (typeof value === 'string' ? value.split(/[\s,;]+/).filter((item) => item !== '') : value),
          z.array(z.enum(TASK_STATUS_CLASSES)),
        )
        .optional()
        .meta({ description: 'Only tasks that ended so: a list of `ok`, `warning`, `error`, `unknown` (running).' }),
    }),
    returns: z.array(TaskEntry),
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
  stop: endpoint({
    method: 'DELETE',
    path: '/nodes/{node}/tasks/{upid}',
    summary: 'Stops a running task: it ends with `task stopped by <user>`; a task that has ended stays as it is',
    description: "The task's owner, or Sys.Modify on `/nodes/{node}`.",
    parameters: z.object(TASK),
    returns: z.null(),
    permission: { kind: 'authenticated' },
  }),
  status: endpoint({
    method: 'GET',
    path: '/nodes/{node}/tasks/{upid}/status',
    summary: "The task's state: `exitstatus` appears when it has ended",
    parameters: z.object({
      ...TASK,
      wait: integerParam({
        description: `Beyond PVE: while the task runs, answer when it ends or after this many seconds (at most ${MAX_WAIT_S}), whichever comes first.`,
        min: 0,
        max: MAX_WAIT_S,
      }).optional(),
    }),
    returns: TaskStatus,
    permission: { kind: 'authenticated' },
  }),
  log: endpoint({
    method: 'GET',
    path: '/nodes/{node}/tasks/{upid}/log',
    summary: "The task's output lines `{n, t}`, `n` from 1",
    parameters: z.object({
      ...TASK,
      start: integerParam({ description: 'Skip this many lines.', min: 0 }).optional(),
      limit: integerParam({ description: 'At most this many lines (default 50; 0: all).', min: 0, max: 1_000_000 }).optional(),
    }),
    returns: z.array(z.object({ n: z.number().int(), t: z.string() })),
    permission: { kind: 'authenticated' },
  }),
  cluster: endpoint({
    method: 'GET',
    path: '/cluster/tasks',
    summary: "The running and the most recent tasks of every node, newest first: all of them with Sys.Audit on `/`, else the caller's own",
    parameters: z.object({}),
    returns: z.array(TaskEntry),
    permission: { kind: 'authenticated' },
  }),
};
