/** The API refused a call: exit code 1, one `corral: <status> <message>` line per error. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly messages: readonly string[],
  ) {
    super(`${status} ${messages.join('; ')}`);
    this.name = 'ApiFailure';
  }

  /** Read from an error response: the envelope's messages, else the HTTP reason phrase. */
  static fromResponse(status: number, reason: string, body: string): ApiFailure {
    const items = envelopeErrors(body);
    // A 400's item names its parameter in `param`; add it unless the message quotes it already (`parameter 'expire': ...`).
    const messages = items.map(({ message, param }) =>
      param !== undefined && !message.includes(`'${param}'`) ? `${param}: ${message}` : message,
    );
    // Corral keeps 401 and 403 messages to two words; the reason phrase says why (`authentication failed - the join token is ...`).
    const [first, ...rest] = messages;
    if (first !== undefined && reason.startsWith(`${first} - `)) return new ApiFailure(status, [reason, ...rest]);
    return new ApiFailure(status, messages.length > 0 ? messages : [reason || 'no reason given']);
  }
}

interface ErrorItem {
  readonly message: string;
  readonly param?: string;
}

function envelopeErrors(body: string): readonly ErrorItem[] {
  let errors: unknown;
  try {
    errors = (JSON.parse(body) as { errors?: unknown }).errors;
  } catch {
    return [];
  }
  if (!Array.isArray(errors)) return [];
  return errors.filter(
    (item): item is ErrorItem => typeof item?.message === 'string' && (item.param === undefined || typeof item.param === 'string'),
  );
}

/** The control plane could not be reached, or could not be trusted: exit code 1. */
export class ConnectionFailure extends Error {
  override name = 'ConnectionFailure';
}
