/*
 * PVE's appliance index (`aplinfo.dat`, what `pveam` reads): records separated by blank lines,
 * each `Key: value` lines; `Description:` has the headline on its line and the long text on the
 * indented lines after it. PVE lists a record with its keys in lower case, its `template` (the
 * file name), `source` (the index's folder URL) and `location` made absolute.
 */

export type Appliance = Readonly<Record<string, string>>;

/** PVE's news entry, which is no appliance. */
export const NEWS_PACKAGE = 'pve-web-news';

/** The appliances of an index read from `indexUrl`; records that are incomplete or malformed are left out, as PVE leaves them out. */
export function parseAplinfo(text: string, indexUrl: string): Appliance[] {
  const source = indexUrl.replace(/\/[^/]*$/, '');
  return text
    .split(/\n[ \t]*\n/)
    .map((record) => parseRecord(record))
    .flatMap((record) => (record === null ? [] : completed(record, source, indexUrl)));
}

function parseRecord(record: string): Record<string, string> | null {
  const fields: Record<string, string> = {};
  // The long description: the indented lines after `Description:` (PVE allows no others).
  let long: string[] | null = null;
  let inDescription = false;
  for (const line of record.split('\n')) {
    if (line.trim() === '') continue;
    if (/^\s/.test(line)) {
      if (!inDescription) return null;
      (long ??= []).push(line.trim());
      continue;
    }
    const match = /^([^:\s][^:]*):\s*(.*?)\s*$/.exec(line);
    if (!match) return null;
    const [, key = '', value = ''] = match;
    inDescription = key.toLowerCase() === 'description';
    if (inDescription) fields.headline = value;
    else fields[key.toLowerCase()] = value;
  }
  if (fields.headline !== undefined) fields.description = (long ?? []).join(' ');
  if (fields.version !== undefined && !/^\d[a-zA-Z0-9.+\-:~]*$/.test(fields.version)) return null;
  if (fields.type !== undefined && !/^(?:openvz|lxc)$/.test(fields.type)) return null;
  return fields;
}

/** PVE's completion: the template's file name and an absolute location; the news entry as it is; null for an incomplete record. */
function completed(fields: Record<string, string>, source: string, indexUrl: string): Appliance[] {
  const { package: name, type, os, version, infopage, location } = fields;
  if (name === NEWS_PACKAGE) return [fields];
  if (!name || !type || !os || !version || !infopage) return [];
  const section = fields.section || 'unknown';
  if (location) {
    const template = /([^/]+\.tar\.(?:gz|xz|zst))$/.exec(location)?.[1] ?? location;
    return [{ ...fields, section, source, template, location: new URL(location, indexUrl).href }];
  }
  const template = `${os}-${name}_${version}_${fields.architecture || 'i386'}.tar.gz`.replace(`${os}-${os}-`, `${os}-`);
  return [{ ...fields, section, source, template, location: `${source}/${section}/${template}` }];
}
