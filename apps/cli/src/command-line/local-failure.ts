/** What a command that works on this machine could not do (write a file, run the agent): exit code 1. */
export class LocalFailure extends Error {
  override name = 'LocalFailure';
}
