import { z } from 'zod';
import { OpaqueId, Sequence } from '../fields.js';

/** One line of a command's output; `n` counts from 1 per request, as PVE numbers a task log's lines. */
export const LogLine = z.object({
  n: z.int().min(1),
  text: z.string().regex(/^[^\r\n]*$/, 'must be one line (no line breaks)'),
});
export type LogLine = z.infer<typeof LogLine>;

/**
 * Agent → control plane: output of the running request `id`, in order, batched; the control plane
 * appends it to the task log. Re-sent after a reconnect until acknowledged (`AckFrame`); a line
 * number seen before is a re-send and is dropped, so the task log has no gaps and no doubles.
 */
export const LogFrame = z.object({
  type: z.literal('log'),
  seq: Sequence,
  id: OpaqueId,
  lines: z.array(LogLine).min(1),
});
export type LogFrame = z.infer<typeof LogFrame>;
