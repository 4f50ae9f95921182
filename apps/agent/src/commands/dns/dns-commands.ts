import type { AreaHandlers } from '../area-handlers.js';
import { readHostFile, writeHostFile } from '../../host/host-files.js';
import type { Host } from '../../host/host.js';
import { readResolvConf, updateResolvConf } from './resolv-conf.js';

const RESOLV_CONF = '/etc/resolv.conf';

/** PVE's `/nodes/{node}/dns`: the resolver settings in the host's resolv.conf. */
export function dnsCommands(host: Host): AreaHandlers<'node.dns.get' | 'node.dns.set'> {
  return {
    'node.dns.get': async () => readResolvConf((await readHostFile(host, RESOLV_CONF)) ?? ''),
    'node.dns.set': async (settings) => {
      const current = (await readHostFile(host, RESOLV_CONF)) ?? '';
      await writeHostFile(host, RESOLV_CONF, updateResolvConf(current, settings));
      return null;
    },
  };
}
