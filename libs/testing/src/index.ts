export { AgentProcess, type ProcessExit } from './agent-process.js';
export { buildBusyboxTemplate } from './busybox-template.js';
export { ControlPlaneProcess, type ControlPlaneOptions } from './control-plane-process.js';
export { FakeAgent, type FakeAgentOptions, type FakeAnswer } from './fake-agent.js';
export { HttpsClient, type ApiRequest, type ApiResponse } from './https-client.js';
export { processesUnder } from './processes-under.js';
export { createDatabase, databaseUrl, dropDatabase, testPostgres, TestPostgres, type AdminConnection } from './test-postgres.js';
export { selfSignedIdentity, type TlsIdentity } from './tls-identity.js';
export { waitFor } from './wait-for.js';
