import type { IncomingMessage } from 'node:http';

/** One message of a server-sent events stream: its fields as sent (`data` lines joined by newlines). */
export interface ServerSentEvent {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
}

/** The control plane comments every 15 s while no event comes: three missed in a row and the connection is taken for dead. */
const IDLE_MS = 45_000;

/** The messages of a response in the text/event-stream format (WHATWG HTML 9.2.6), comments left out; an error once it is silent for IDLE_MS. */
export function serverSentEvents(response: IncomingMessage): AsyncGenerator<ServerSentEvent> {
  response.setEncoding('utf8');
  response.setTimeout(IDLE_MS, () =>
    response.destroy(Object.assign(new Error(`nothing heard for ${IDLE_MS / 1000} s`), { code: 'ETIMEDOUT' })),
  );
  return parseServerSentEvents(response as AsyncIterable<string>);
}

export async function* parseServerSentEvents(chunks: AsyncIterable<string>): AsyncGenerator<ServerSentEvent> {
  let pending = '';
  let message: { id?: string; event?: string; data?: string } = {};
  for await (const chunk of chunks) {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const raw of lines) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line === '') {
        if (Object.keys(message).length > 0) yield message;
        message = {};
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') message.data = message.data === undefined ? value : `${message.data}\n${value}`;
      else if (field === 'id' || field === 'event') message[field] = value;
    }
  }
}
