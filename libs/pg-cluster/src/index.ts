export { PgCluster, type PgClusterOptions, type PgConnection } from './pg-cluster.js';
