import { ApiError } from '../errors/api-error.js';
import { badParam } from '../errors/resource-errors.js';

/** The extent of the event table as one snapshot saw it. */
export interface EventBounds {
  /** The newest committed seq (0 before the first event). */
  readonly newest: number;
  /** The oldest seq still kept; null when none is. */
  readonly oldest: number | null;
  /** Retention may have deleted every event up to this seq. */
  readonly prunedThrough: number;
}

/**
 * A reader's cursor must be one it could have seen (not past the newest event: a 400 naming the
 * parameter) and must not have lost events to retention since (410, with where to resume).
 */
export function checkCursor(since: number, bounds: EventBounds, param: string): void {
  if (since > bounds.newest) throw badParam(param, `${param} ${since} is in the future: the newest event is ${bounds.newest}`);
  if (since < bounds.prunedThrough) throw cursorExpired(since, bounds);
}

export function cursorExpired(since: number, bounds: EventBounds): ApiError {
  const oldest = bounds.oldest ?? bounds.newest + 1;
  return new ApiError(
    'CURSOR_EXPIRED',
    `events after ${since} were deleted (retention): the oldest available is ${oldest}; resume with since=${oldest - 1} or follow without since`,
  );
}
