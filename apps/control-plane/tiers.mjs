// The control plane's top-level folders under src/, lowest tier first. A folder imports only its
// own files and folders of lower tiers: none of its own tier, none above. Files directly in src/
// (main.ts, app.module.ts, core.module.ts, entities.ts, data-source.ts) compose the app and may
// import anything.
export const tiers = [
  // Settings and the API's errors.
  ['config', 'errors'],
  ['logging', 'tls'],
  // The database connection and its notifications; the endpoint declarations, parameters and the
  // request's principal and credentials.
  ['database', 'http'],
  // Recording events; the version and the health probes.
  ['events', 'version', 'health'],
  // What many areas read: guests, nodes, storages, pool memberships and HA resources, with their
  // in-memory views.
  ['inventory', 'openapi'],
  // Authentication, authorization and the endpoint guard; the replicas, where each is reached and which holds each node's agent.
  ['access', 'replicas'],
  // The agent hub: it keeps the inventory's node and guest views current.
  ['agents'],
  // The routing of requests to the replica holding their node's agent.
  ['nodes', 'routing'],
  ['tasks'],
  ['host', 'storage'],
  ['guests'],
  // The history reads the views, the agents and the guests' figures.
  ['backups', 'cluster', 'history'],
  ['local-agent', 'pools'],
  // The metrics read the views, the agents and the guests' figures.
  ['metrics'],
];
