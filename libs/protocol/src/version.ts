/**
 * The protocol version the agent announces in `hello` and the control plane accepts in `welcome`.
 * Within a version only optional fields and new commands are added (receivers drop fields they do
 * not know; an agent answers a command it does not know with `unknown-command`). Removing or
 * renaming anything, or adding a frame type, a report kind or an event kind, is a new version.
 */
export const PROTOCOL_VERSION = 1;

/** Where the agent dials the control plane: `wss://<control plane>:8006/agent/v1`. */
export const AGENT_WEBSOCKET_PATH = '/agent/v1';

/**
 * Where an agent opens a byte stream the control plane asked for (`guest.vnc.open`):
 * `wss://<control plane>:8006/agent/v1/streams/<stream>`, with the credential of its connection.
 */
export const AGENT_STREAMS_PATH = `${AGENT_WEBSOCKET_PATH}/streams`;
