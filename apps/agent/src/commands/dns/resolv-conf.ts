import type { DnsSettings } from '@corral/protocol';

/*
 * resolv.conf(5) as glibc reads it: a keyword at the start of a line, comments start with `#` or
 * `;`; `domain` and `search` are exclusive and the last one wins; at most three name servers count.
 */

const KEYWORD = /^\s*(nameserver|search|domain)(?:\s+(.*))?$/;

/** The search domains and the first three name servers of a resolv.conf text. */
export function readResolvConf(text: string): DnsSettings {
  let search: string[] = [];
  const servers: string[] = [];
  for (const line of text.split('\n')) {
    const [, keyword, rest = ''] = KEYWORD.exec(line) ?? [];
    const values = rest
      .replace(/[#;].*$/, '')
      .split(/\s+/)
      .filter((value) => value !== '');
    if (keyword === 'nameserver' && values[0] !== undefined && servers.length < 3) servers.push(values[0]);
    if (keyword === 'search') search = values;
    if (keyword === 'domain') search = values.slice(0, 1);
  }
  return { search, servers };
}

/**
 * The text with its search, domain and nameserver lines replaced by `settings`, written where the
 * first of them was (else at the end); every other line, comments and `options` included, stays.
 */
export function updateResolvConf(text: string, settings: DnsSettings): string {
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const managed = [
    ...(settings.search.length > 0 ? [`search ${settings.search.join(' ')}`] : []),
    ...settings.servers.map((server) => `nameserver ${server}`),
  ];
  const first = lines.findIndex((line) => KEYWORD.test(line));
  const kept = lines.filter((line) => !KEYWORD.test(line));
  const at = first === -1 ? kept.length : first; // every line before the first managed one is kept
  const result = [...kept.slice(0, at), ...managed, ...kept.slice(at)];
  return result.length === 0 ? '' : `${result.join('\n')}\n`;
}
