/** What the connection gives a running command besides its parameters. */
export interface CommandContext {
  /** Aborted when the request's timeoutMs passes or the agent stops: kill what runs. */
  readonly signal: AbortSignal;
  /** One output line of the running command (becomes a `log` frame, then a task log line). */
  readonly log: (line: string) => void;
}
