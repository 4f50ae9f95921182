export type LogLevel = 'info' | 'warn' | 'error';

/** Fields of a log line, never a secret: the node's credential stays out of every line. */
export type LogFields = Readonly<Record<string, unknown>> & { readonly time?: never; readonly level?: never; readonly msg?: never };

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

/**
 * A logger that writes one JSON object per line (`time`, `level`, `msg`, then the fields), as
 * journald and log shippers read it. An Error in the fields is written as its message.
 */
export function jsonLogger(write: (line: string) => void, now: () => Date = () => new Date()): Logger {
  const at =
    (level: LogLevel) =>
    (msg: string, fields: LogFields = {}) => {
      const entry = { time: now().toISOString(), level, msg, ...fields };
      write(`${JSON.stringify(entry, (_key, value: unknown) => (value instanceof Error ? value.message : value))}\n`);
    };
  return { info: at('info'), warn: at('warn'), error: at('error') };
}
