import { GuestType } from '@corral/protocol';
import { z } from 'zod';
import { join } from 'node:path';
import { readFileIfExists, writeFileAtomically } from '../../host/host-files.js';

/**
 * The file in the agent's state directory where the simulator keeps its guests, so that a restarted
 * agent still knows the ones that run. Each agent has its own: simulated guests never outlive the
 * data directory of the agent that made them, and two agents on one machine never share them.
 */
const SIM_STATE_FILE = 'sim-guests.json';

/** The simulator's state file in the state directory `stateDir`. */
export function simStatePath(stateDir: string): string {
  return join(stateDir, SIM_STATE_FILE);
}

const SimGuest = z.object({
  type: GuestType,
  vmid: z.int().min(1),
  name: z.string(),
  memoryMiB: z.int().min(1),
  template: z.boolean(),
  status: z.enum(['running', 'stopped', 'paused']),
  /** While it runs or is paused: the made-up process id, and when it started (ms since the epoch). */
  pid: z.int().min(1).optional(),
  startedAt: z.number().optional(),
  /** The volume ids it holds: a create or clone onto one of them is refused, as on a real host. */
  volids: z.array(z.string()),
  /** While it runs with `agent: 1`: what its simulated guest agent reports (its cards' MACs). */
  agent: z.object({ macs: z.array(z.string()) }).optional(),
  /** The names of the snapshots its volumes hold (absent: none). */
  snapshots: z.array(z.string()).optional(),
});
export type SimGuest = z.infer<typeof SimGuest>;

const SimState = z.object({
  guests: z.array(SimGuest),
  /** The next made-up process id. */
  nextPid: z.int().min(1),
});
export type SimState = z.infer<typeof SimState>;

/** Made-up process ids start above those of a freshly booted host's own processes. */
export const FIRST_PID = 100_000;

/** The saved state; an empty one when there is none yet. A file that is not the simulator's state is an error: it is never overwritten unseen. */
export async function readSimState(path: string): Promise<SimState> {
  const text = await readFileIfExists(path);
  if (text === undefined) return { guests: [], nextPid: FIRST_PID };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${path} is not JSON: remove it to start the simulator afresh`);
  }
  const parsed = SimState.safeParse(json);
  if (!parsed.success)
    throw new Error(`${path} is not the simulator's state (${parsed.error.issues[0]?.message ?? 'invalid'}): remove it to start afresh`);
  return parsed.data;
}

/**
 * Writes the state whenever `save()` is called, one write at a time: calls made while a write waits
 * to begin share it (it takes the newest state when it begins), so 200 parallel creates do not mean
 * 200 writes in a row. `save()` resolves once a write that includes the caller's change is done.
 */
export class SimStateWriter {
  private tail: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;

  constructor(
    private readonly path: string,
    private readonly snapshot: () => SimState,
  ) {}

  save(): Promise<void> {
    if (this.queued !== undefined) return this.queued;
    const queued = this.tail.then(() => {
      this.queued = undefined;
      return writeFileAtomically(this.path, `${JSON.stringify(this.snapshot())}\n`, 0o600);
    });
    this.queued = queued;
    this.tail = queued.catch(() => undefined);
    return queued;
  }
}
