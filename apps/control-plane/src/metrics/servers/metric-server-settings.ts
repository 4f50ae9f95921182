/*
 * The settings of an external metric server, under PVE's names and with PVE's defaults. PVE has a
 * third type, `opentelemetry`, which Corral does not send to (a create of one is refused saying so).
 */

export type MetricServerType = 'influxdb' | 'graphite';

export interface MetricServerSettings {
  readonly server: string;
  readonly port: number;
  /** UDP: the largest datagram, 48 bytes of headers included (PVE's default 1500). */
  readonly mtu?: number;
  /** Seconds a connection or an HTTP write may take (PVE's default 1). */
  readonly timeout?: number;
  // InfluxDB
  readonly influxdbproto?: 'udp' | 'http' | 'https';
  readonly organization?: string;
  readonly bucket?: string;
  readonly 'api-path-prefix'?: string;
  readonly 'max-body-size'?: number;
  readonly 'verify-certificate'?: boolean;
  // Graphite
  readonly proto?: 'udp' | 'tcp';
  readonly path?: string;
}

export type SettingName = keyof MetricServerSettings;

/** The settings each type takes (PVE's `options` of its plugin); any other is refused. */
export const OPTIONS: Readonly<Record<MetricServerType, readonly SettingName[]>> = {
  influxdb: [
    'server',
    'port',
    'mtu',
    'timeout',
    'influxdbproto',
    'organization',
    'bucket',
    'api-path-prefix',
    'max-body-size',
    'verify-certificate',
  ],
  graphite: ['server', 'port', 'mtu', 'timeout', 'proto', 'path'],
};

export const DEFAULTS = {
  mtu: 1500,
  timeout: 1,
  influxdbproto: 'udp',
  organization: 'proxmox',
  bucket: 'proxmox',
  maxBodySize: 25_000_000,
  graphitePath: 'proxmox',
  graphiteProto: 'udp',
} as const;

/** How a server is reached: its transport, and the largest batch it takes at once. */
export type Transport = 'udp' | 'tcp' | 'http' | 'https';

export function transportOf(type: MetricServerType, settings: MetricServerSettings): Transport {
  return type === 'influxdb' ? (settings.influxdbproto ?? DEFAULTS.influxdbproto) : (settings.proto ?? DEFAULTS.graphiteProto);
}

/**
 * The most bytes sent at once, as PVE batches them: a UDP datagram of the MTU less 50 bytes of
 * headers, 56,000 bytes per Graphite TCP write, `max-body-size` per InfluxDB HTTP request.
 */
export function batchBytes(type: MetricServerType, settings: MetricServerSettings): number {
  switch (transportOf(type, settings)) {
    case 'udp':
      return (settings.mtu ?? DEFAULTS.mtu) - 50;
    case 'tcp':
      return 56_000;
    default:
      return settings['max-body-size'] ?? DEFAULTS.maxBodySize;
  }
}
