/** A mistake on the command line or in the environment, found before anything is sent: exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** Where to read how it is done right. */
    readonly hint = "Run 'corral --help' for the commands.",
  ) {
    super(message);
    this.name = 'UsageError';
  }
}
