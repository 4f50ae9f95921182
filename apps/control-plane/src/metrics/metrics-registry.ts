import { Registry } from 'prom-client';

/** The replica's metrics, apart from prom-client's global registry: each app (and each test's) has its own. */
export class MetricsRegistry extends Registry {}
