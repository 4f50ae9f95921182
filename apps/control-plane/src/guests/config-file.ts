/*
 * A guest's config as PVE writes its file (`/etc/pve/qemu-server/<vmid>.conf`, `lxc/<vmid>.conf`),
 * which a backup archive holds: the description first as `#` lines, then `key: value` lines sorted
 * by key. PVE percent-encodes what a line cannot hold; Corral's values are single lines, and the
 * description's own lines are kept as they are but for `%`, which is encoded so that it reads back.
 * Snapshot sections (`[name]`) end the guest's own part, as in PVE.
 */

export function renderConfigFile(config: Readonly<Record<string, string>>): string {
  const { description, ...rest } = config;
  const comments = description === undefined ? [] : description.split('\n').map((line) => `#${line.replaceAll('%', '%25')}`);
  const lines = Object.keys(rest)
    .sort()
    .map((key) => `${key}: ${rest[key] ?? ''}`);
  return [...comments, ...lines].map((line) => `${line}\n`).join('');
}

/** The keys and values of a config file; a line that is neither a comment nor `key: value` is an error naming its number. */
export function parseConfigFile(text: string): Record<string, string> {
  const config: Record<string, string> = {};
  const description: string[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.startsWith('[')) break;
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      description.push(line.slice(1).replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))));
      continue;
    }
    const match = /^([a-z][a-z0-9_-]*):\s?(.*)$/.exec(line);
    if (!match) throw new Error(`line ${index + 1} is not 'key: value'`);
    config[match[1] as string] = match[2] as string;
  }
  return description.length > 0 ? { description: description.join('\n'), ...config } : config;
}
