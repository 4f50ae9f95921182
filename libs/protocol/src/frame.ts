import { z } from 'zod';
import { AckFrame } from './frames/ack.js';
import { FailureFrame, ResultFrame } from './frames/answers.js';
import { CancelFrame } from './frames/cancel.js';
import { EventFrame } from './frames/event.js';
import { LeaseFrame } from './frames/lease.js';
import { LogFrame } from './frames/log.js';
import { ReportFrame } from './frames/report.js';
import { RequestFrame } from './frames/request.js';
import { HeartbeatFrame, HelloFrame, WelcomeFrame } from './frames/session.js';
import { describeIssues } from './issues.js';

const agentFrames = [HelloFrame, HeartbeatFrame, ResultFrame, FailureFrame, LogFrame, ReportFrame, EventFrame] as const;
const controlPlaneFrames = [WelcomeFrame, RequestFrame, AckFrame, CancelFrame, LeaseFrame] as const;

/** Names the frame types a union accepts when `type` is missing or none of them. */
function unknownType(types: readonly string[], sender: string): z.core.$ZodErrorMap {
  return (issue) => {
    if (issue.code !== 'invalid_union') return undefined;
    const input = issue.input;
    const type = typeof input === 'object' && input !== null && 'type' in input ? input.type : undefined;
    const got = type === undefined ? 'missing' : `'${String(type)}' is not a frame ${sender} sends`;
    return `${got} (expected ${types.join(', ')})`;
  };
}
const typesOf = (frames: readonly { shape: { type: z.ZodLiteral<string> } }[]) => frames.map((frame) => frame.shape.type.value);

/** A frame the agent sends. The control plane validates every inbound frame with this. */
export const AgentFrame = z.discriminatedUnion('type', agentFrames, { error: unknownType(typesOf(agentFrames), 'the agent') });
export type AgentFrame = z.infer<typeof AgentFrame>;

/** A frame the control plane sends. The agent validates every inbound frame with this. */
export const ControlPlaneFrame = z.discriminatedUnion('type', controlPlaneFrames, {
  error: unknownType(typesOf(controlPlaneFrames), 'the control plane'),
});
export type ControlPlaneFrame = z.infer<typeof ControlPlaneFrame>;

/**
 * Any frame of either side, for tools and tests that read both directions.
 *
 * Frame objects are not strict: a field a receiver does not know is dropped, so that a newer peer
 * may add optional fields within a protocol version. Command parameters are strict (`CommandDefinition`).
 */
export const Frame = z.discriminatedUnion('type', [...agentFrames, ...controlPlaneFrames], {
  error: unknownType(typesOf([...agentFrames, ...controlPlaneFrames]), 'either side'),
});
export type Frame = z.infer<typeof Frame>;

/** A parsed frame, or why the value is not one (`type: 'ping' is not a frame ...`, `node: ...`). */
export type FrameParse<F> = { readonly ok: true; readonly frame: F } | { readonly ok: false; readonly error: string };

function parseWith<F>(schema: z.ZodType<F>, json: unknown): FrameParse<F> {
  const parsed = schema.safeParse(json);
  return parsed.success ? { ok: true, frame: parsed.data } : { ok: false, error: describeIssues(parsed.error) };
}

/**
 * Checks a decoded JSON value (`JSON.parse` of a websocket message) against every frame type.
 * Never throws. The receiving sides use `parseAgentFrame` / `parseControlPlaneFrame`, which also
 * refuse a frame that only the other side may send; on failure they close with `invalidFrame`.
 */
export function parseFrame(json: unknown): FrameParse<Frame> {
  return parseWith(Frame, json);
}

/** The control plane's check of what its agent sent. */
export function parseAgentFrame(json: unknown): FrameParse<AgentFrame> {
  return parseWith(AgentFrame, json);
}

/** The agent's check of what the control plane sent. */
export function parseControlPlaneFrame(json: unknown): FrameParse<ControlPlaneFrame> {
  return parseWith(ControlPlaneFrame, json);
}

/**
 * The text of a frame for the websocket. The frame is validated first, as the receiver will: an
 * invalid frame is a bug on the sending side, so this throws instead of letting the peer close the
 * connection (and the agent re-send the same frame after every reconnect). Fields that are not part
 * of the frame are left out.
 */
export function encodeFrame(frame: Frame): string {
  const parsed = Frame.safeParse(frame);
  if (!parsed.success) throw new Error(`refusing to send an invalid ${frame.type} frame: ${describeIssues(parsed.error)}`);
  return JSON.stringify(parsed.data);
}
