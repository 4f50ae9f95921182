import type { FailureCode } from '@corral/protocol';

/**
 * A command's refusal or failure with the code of its `failure` frame (`FailureCode`). Any other
 * Error a handler throws is answered as `failed` with its message, so this class is for the other
 * codes and for messages written for the operator.
 */
export class CommandFailure extends Error {
  override name = 'CommandFailure';

  constructor(
    readonly code: FailureCode,
    message: string,
  ) {
    super(message);
  }
}
