import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('defaults to port 8006, every interface, ./var and the embedded database', () => {
    expect(loadConfig({}, '/srv/corral')).toEqual({
      port: 8006,
      bind: null,
      dataDir: '/srv/corral/var',
      consoleDir: null,
      tls: null,
      databaseUrl: null,
      logLevel: 'info',
      rootPassword: null,
      clusterName: 'corral',
      oidc: null,
      localNode: expect.stringMatching(/^[A-Za-z0-9-]+$/),
      eventRetentionDays: 7,
      webhookRetryHours: 24,
      webhookMaxBackoffS: 600,
      haLeaseS: 30,
      errorFormat: 'spec',
      checkResponses: false,
      aplinfoUrl: 'http://download.proxmox.com/images/aplinfo-pve-9.dat',
      downloadAllowNetworks: [],
      httpBodyTimeoutS: 30,
      replicaUrl: expect.stringMatching(/^https:\/\/.+:8006$/),
      clusterSecret: null,
    });
  });

  it('reads where other replicas reach this one and the secret they share, and refuses a short secret', () => {
    expect(loadConfig({ CORRAL_REPLICA_URL: 'https://10.0.0.5:8006/', CORRAL_CLUSTER_SECRET: 'a'.repeat(32) }, '/')).toMatchObject({
      replicaUrl: 'https://10.0.0.5:8006',
      clusterSecret: 'a'.repeat(32),
    });
    expect(() => loadConfig({ CORRAL_CLUSTER_SECRET: 'short' }, '/')).toThrow(
      'CORRAL_CLUSTER_SECRET: must be 32 to 256 printable characters',
    );
    expect(() => loadConfig({ CORRAL_REPLICA_URL: 'http://10.0.0.5:8006' }, '/')).toThrow('CORRAL_REPLICA_URL: must be an https:// URL');
  });

  it("takes PVE's error format and the response check, and refuses another format by name", () => {
    expect(loadConfig({ CORRAL_ERROR_FORMAT: 'pve', CORRAL_CHECK_RESPONSES: '1' }, '/')).toMatchObject({
      errorFormat: 'pve',
      checkResponses: true,
    });
    expect(() => loadConfig({ CORRAL_ERROR_FORMAT: 'xml' }, '/')).toThrow('CORRAL_ERROR_FORMAT: must be spec or pve');
  });

  it('reads the appliance index URL and the networks downloads may reach', () => {
    const config = loadConfig(
      { CORRAL_APLINFO_URL: ' https://mirror.example.com/aplinfo.dat ', CORRAL_DOWNLOAD_ALLOW_NETWORKS: '192.168.10.0/24, fd00::/8,' },
      '/',
    );
    expect(config).toEqual(
      expect.objectContaining({
        aplinfoUrl: 'https://mirror.example.com/aplinfo.dat',
        downloadAllowNetworks: ['192.168.10.0/24', 'fd00::/8'],
      }),
    );
  });

  it('names the local node CORRAL_NODE_NAME, or has none with CORRAL_LOCAL_AGENT=0', () => {
    expect(loadConfig({ CORRAL_NODE_NAME: 'pve1' }, '/').localNode).toBe('pve1');
    expect(loadConfig({ CORRAL_NODE_NAME: 'pve1', CORRAL_LOCAL_AGENT: '0' }, '/').localNode).toBeNull();
  });

  it('reads the OAuth issuer with its defaults', () => {
    const config = loadConfig({ CORRAL_OIDC_ISSUER: 'https://id.example.com/', CORRAL_OIDC_AUDIENCE: 'corral' }, '/');
    expect(config.oidc).toEqual({
      issuer: 'https://id.example.com/',
      audience: 'corral',
      jwksUrl: null,
      realm: 'oidc',
      userClaim: 'sub',
      autocreate: false,
    });
  });

  it('resolves relative paths against the working directory and keeps absolute ones', () => {
    const config = loadConfig(
      { CORRAL_DATA_DIR: 'data', CORRAL_TLS_CERT: '/etc/corral/c.pem', CORRAL_TLS_KEY: 'k.pem', CORRAL_CONSOLE_DIR: 'console' },
      '/srv',
    );
    expect(config.dataDir).toBe('/srv/data');
    expect(config.consoleDir).toBe('/srv/console');
    expect(config.tls).toEqual({ certFile: '/etc/corral/c.pem', keyFile: '/srv/k.pem' });
  });

  it('returns a frozen object', () => {
    expect(Object.isFrozen(loadConfig({}, '/'))).toBe(true);
  });

  it.each([
    [{ CORRAL_PORT: 'http' }, 'CORRAL_PORT: must be a port number from 0 to 65535'],
    [{ CORRAL_PORT: '70000' }, 'CORRAL_PORT: must be a port number from 0 to 65535'],
    [{ CORRAL_TLS_CERT: '/c.pem' }, 'CORRAL_TLS_CERT: CORRAL_TLS_CERT and CORRAL_TLS_KEY must be set together'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL: must be a postgres:// or postgresql:// URL'],
    [{ CORRAL_LOG_LEVEL: 'loud' }, 'CORRAL_LOG_LEVEL'],
    [{ CORRAL_ROOT_PASSWORD: 'short' }, 'CORRAL_ROOT_PASSWORD: must be at least 8 characters'],
    [{ CORRAL_NODE_NAME: 'node_1' }, 'CORRAL_NODE_NAME: must be a host name label'],
    [{ CORRAL_LOCAL_AGENT: 'yes' }, 'CORRAL_LOCAL_AGENT'],
    [{ CORRAL_EVENT_RETENTION_DAYS: '6' }, 'CORRAL_EVENT_RETENTION_DAYS: must be at least 7 days'],
    [{ CORRAL_EVENT_RETENTION_DAYS: '7.5' }, 'CORRAL_EVENT_RETENTION_DAYS: must be a whole number of days'],
    [{ CORRAL_WEBHOOK_RETRY_HOURS: '0' }, 'CORRAL_WEBHOOK_RETRY_HOURS: must be more than 0 hours'],
    [{ CORRAL_WEBHOOK_RETRY_HOURS: '1d' }, 'CORRAL_WEBHOOK_RETRY_HOURS: must be a number of hours'],
    [{ CORRAL_WEBHOOK_MAX_BACKOFF_S: '0' }, 'CORRAL_WEBHOOK_MAX_BACKOFF_S: must be a whole number of seconds, at least 1'],
    [{ CORRAL_WEBHOOK_MAX_BACKOFF_S: '2.5' }, 'CORRAL_WEBHOOK_MAX_BACKOFF_S: must be a whole number of seconds, at least 1'],
    [{ CORRAL_HA_LEASE_S: '9' }, 'CORRAL_HA_LEASE_S: must be a whole number of seconds from 10 to 600'],
    [{ CORRAL_HA_LEASE_S: '601' }, 'CORRAL_HA_LEASE_S: must be a whole number of seconds from 10 to 600'],
    [{ CORRAL_HA_LEASE_S: '30.5' }, 'CORRAL_HA_LEASE_S: must be a whole number of seconds from 10 to 600'],
    [{ CORRAL_HTTP_BODY_TIMEOUT_S: '0' }, 'CORRAL_HTTP_BODY_TIMEOUT_S: must be a whole number of seconds from 1 to 3600'],
    [{ CORRAL_HTTP_BODY_TIMEOUT_S: '0x10' }, 'CORRAL_HTTP_BODY_TIMEOUT_S: must be a whole number of seconds from 1 to 3600'],
    [
      { CORRAL_OIDC_ISSUER: 'https://id.example.com' },
      'CORRAL_OIDC_ISSUER: CORRAL_OIDC_ISSUER and CORRAL_OIDC_AUDIENCE must be set together',
    ],
    [{ CORRAL_OIDC_ISSUER: 'ftp://x', CORRAL_OIDC_AUDIENCE: 'a' }, 'CORRAL_OIDC_ISSUER: must be an http(s) URL'],
    [{ CORRAL_APLINFO_URL: 'ftp://x/aplinfo.dat' }, 'CORRAL_APLINFO_URL: must be an http(s) URL'],
    [
      { CORRAL_DOWNLOAD_ALLOW_NETWORKS: '192.168.10.0' },
      "CORRAL_DOWNLOAD_ALLOW_NETWORKS: '192.168.10.0' is not a network in CIDR notation",
    ],
  ])('rejects %j naming the variable', (env, message) => {
    expect(() => loadConfig(env, '/')).toThrow(ConfigError);
    expect(() => loadConfig(env, '/')).toThrow(message);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ CORRAL_BIND: '', DATABASE_URL: ' ', CORRAL_APLINFO_URL: '', CORRAL_DOWNLOAD_ALLOW_NETWORKS: '' }, '/')).toEqual(
      expect.objectContaining({
        bind: null,
        databaseUrl: null,
        aplinfoUrl: 'http://download.proxmox.com/images/aplinfo-pve-9.dat',
        downloadAllowNetworks: [],
      }),
    );
  });
});
