import { ApiFailure, ConnectionFailure } from '../http/api-failure.js';
import type { ServerSentEvent } from './server-sent-events.js';

/** An event as the stream sends it (docs/events.md). */
export interface StreamedEvent {
  readonly seq: number;
  readonly event: string;
  readonly node: string;
  readonly vmid?: number;
  readonly timestamp: string;
}

export interface FollowOptions {
  /** Print the events after this seq first; undefined: from the next event on. */
  readonly since: number | undefined;
  /** Opens the stream after `since` (undefined: from the next event); rejects as ApiClient does. */
  readonly open: (since: number | undefined) => Promise<AsyncIterable<ServerSentEvent>>;
  readonly print: (event: StreamedEvent) => void;
  /** Says on stderr where the stream starts, and why it is opened again. */
  readonly say: (text: string) => void;
  readonly wait: (ms: number) => Promise<void>;
}

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;

/**
 * Follows the event stream until something retrying cannot mend, which it throws: the first
 * connection failing, or an answer 4xx (410 when the events after the cursor were deleted, 401, 403,
 * 400). A lost connection, a 5xx or the control plane shutting down is retried with exponential
 * backoff, resuming after the last seq the stream gave (an event's, or the cursor it opened at), so
 * nothing is printed twice and nothing is missed.
 */
export async function followEvents(options: FollowOptions): Promise<never> {
  let since = options.since;
  let connected = false;
  let failures = 0;
  for (;;) {
    let why = 'the control plane ended the stream';
    try {
      const messages = await options.open(since);
      connected = true;
      failures = 0;
      for await (const message of messages) {
        if (message.event === 'end') {
          const end = JSON.parse(message.data ?? '{}') as { status?: number; message?: string };
          if (end.status === 410) throw new ApiFailure(410, [end.message ?? 'the events after the cursor were deleted']);
          why = `the control plane ended the stream: ${end.message ?? 'no reason given'}`;
          break;
        }
        if (message.id === undefined || !/^\d+$/.test(message.id)) continue;
        since = Number(message.id);
        // The opening message carries only the cursor the stream starts at.
        if (message.data === undefined) options.say(`following the events after seq ${since}`);
        else options.print(JSON.parse(message.data) as StreamedEvent);
      }
    } catch (error) {
      if (!connected || !retryable(error)) throw error;
      why = (error as Error).message;
    }
    const delay = Math.min(FIRST_RETRY_MS * 2 ** failures++, MAX_RETRY_MS);
    options.say(`${why}; reconnecting in ${delay / 1000} s${since === undefined ? '' : `, after seq ${since}`}`);
    await options.wait(delay);
  }
}

/** A failure of the connection or of the server, not of the request: a 5xx, or a socket error (which has a code). */
function retryable(error: unknown): boolean {
  if (error instanceof ApiFailure) return error.status >= 500;
  return error instanceof ConnectionFailure || (error instanceof Error && 'code' in error);
}
