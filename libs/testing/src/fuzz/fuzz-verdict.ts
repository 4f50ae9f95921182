/**
 * The server errors a fuzz run accepts, each with why: the only 5xx answers that are not defects.
 * Everything else at 500 or above fails the run.
 */
export const ACCEPTED_SERVER_ERRORS: readonly { readonly status: number; readonly message: RegExp; readonly why: string }[] = [
  { status: 501, message: /\bnot built\b/, why: 'a PVE feature Corral does not have, named as such' },
  {
    status: 503,
    message: /^node '[^']+' is offline$/,
    why: 'the node named exists but its agent is not connected: a node the fuzzer removed',
  },
  {
    status: 503,
    message: /^VNC is not available with the sim driver$/,
    why: 'the sim driver the fuzzer runs has no VNC server: its agent says it cannot run the command',
  },
  {
    status: 502,
    message: /^cannot read the appliance index /,
    why: 'the appliance index is read from the internet, which the test machine may not reach',
  },
];

// What an error body must never show: how the server is built rather than what the caller did.
const LEAKS: readonly { readonly what: string; readonly pattern: RegExp }[] = [
  { what: 'a stack trace', pattern: /\n\s+at \S+ \(|\bat (?:async )?\S+ \((?:file:|node:|\/)/ },
  {
    what: 'SQL',
    pattern:
      /\bSELECT\b|\bINSERT INTO\b|\bUPDATE "|violates|relation "|syntax error at or near|duplicate key value|invalid input syntax for/,
  },
  { what: 'a source path', pattern: /node_modules|\/dist\/|\/src\/|\.[cm]?[jt]s:\d+/ },
  {
    what: 'an error class name',
    pattern:
      /\b(?:TypeError|ReferenceError|RangeError|SyntaxError|QueryFailedError|TypeORMError|EntityNotFoundError|ZodError|AggregateError|DatabaseError)\b/,
  },
];

/** What is wrong with an answer, or null: a 5xx not accepted above, or an error body that leaks the server's insides. */
export function answerFault(status: number, text: string): string | null {
  const message = errorMessage(text);
  if (status >= 500 && !ACCEPTED_SERVER_ERRORS.some((accepted) => accepted.status === status && accepted.message.test(message))) {
    return `${status}: ${message || text.slice(0, 300)}`;
  }
  if (status < 400) return null;
  const leak = LEAKS.find((candidate) => candidate.pattern.test(text));
  return leak ? `${status} leaks ${leak.what}: ${text.slice(0, 300)}` : null;
}

function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { errors?: { message?: string }[] };
    return body.errors?.[0]?.message ?? '';
  } catch {
    return '';
  }
}
