/*
 * Parsers of what apt's programs print, kept apart from running them so that recorded real output
 * tests them. Lines they do not recognise (apt's "Listing...", warnings) are skipped.
 */

/** One line of `apt list --upgradable`. */
export interface UpgradableLine {
  readonly package: string;
  /** The archives (or codenames) the new version comes from, as apt names them: `stable-security`. */
  readonly suites: readonly string[];
  readonly version: string;
  readonly arch: string;
  readonly oldVersion: string;
}

// openssl/stable-security,stable 3.5.1-1+deb13u1 amd64 [upgradable from: 3.5.1-1]
const UPGRADABLE = /^([^\s/]+)\/(\S+)\s+(\S+)\s+(\S+)\s+\[upgradable from: ([^\]\s]+)\]/;

export function parseUpgradableList(text: string): UpgradableLine[] {
  return text.split('\n').flatMap((line) => {
    const [, name, suites, version, arch, oldVersion] = UPGRADABLE.exec(line) ?? [];
    if (name === undefined || suites === undefined || version === undefined || arch === undefined || oldVersion === undefined) return [];
    return [{ package: name, suites: suites.split(','), version, arch, oldVersion }];
  });
}

/**
 * The origin (`o=`) of each archive (`a=`) and codename (`n=`) in `apt-cache policy`, which is
 * how a suite of `apt list` finds the Origin PVE shows (`Debian`, `Proxmox`).
 */
export function parsePolicyOrigins(text: string): Map<string, string> {
  const origins = new Map<string, string>();
  for (const line of text.split('\n')) {
    const release = /^\s+release\s+(.*)$/.exec(line)?.[1];
    if (release === undefined) continue;
    const fields = new Map(
      release.split(',').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as const),
    );
    const origin = fields.get('o');
    if (origin === undefined || origin === '') continue;
    for (const key of ['a', 'n']) {
      const suite = fields.get(key);
      if (suite !== undefined && suite !== '' && !origins.has(suite)) origins.set(suite, origin);
    }
  }
  return origins;
}

/** A package record of `apt-cache show`, with the fields PVE's update list shows. */
export interface PackageRecord {
  readonly package: string;
  readonly version: string;
  readonly arch: string;
  /** The short description. */
  readonly title: string;
  /** The long description, absent when the index has only the short one. */
  readonly description?: string;
  readonly section?: string;
  readonly priority?: string;
}

export function parsePackageRecords(text: string): PackageRecord[] {
  return text
    .split(/\n\s*\n/)
    .map(parseStanza)
    .flatMap((fields) => {
      const name = fields.get('package');
      const version = fields.get('version');
      if (name === undefined || version === undefined) return [];
      // With translations, the description is `Description-en`; without, `Description`.
      const [title = '', ...long] = (fields.get('description-en') ?? fields.get('description') ?? '').split('\n');
      const description = long.map((line) => (line.trim() === '.' ? '' : line.replace(/^ /, ''))).join('\n');
      return [
        {
          package: name,
          version,
          arch: fields.get('architecture') ?? '',
          title: title.trim(),
          description: description === '' ? undefined : description,
          section: fields.get('section') || undefined,
          priority: fields.get('priority') || undefined,
        },
      ];
    });
}

/** deb822 fields by lower-case name; continuation lines joined with newlines. */
function parseStanza(stanza: string): Map<string, string> {
  const fields = new Map<string, string>();
  let last: string | undefined;
  for (const line of stanza.split('\n')) {
    if (/^\s/.test(line) && last !== undefined) {
      fields.set(last, `${fields.get(last) ?? ''}\n${line}`);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    last = line.slice(0, colon).toLowerCase();
    fields.set(last, line.slice(colon + 1).trim());
  }
  return fields;
}

/** apt's own error lines (`E: Unable to locate package x`), without the `E: `. */
export function aptErrors(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('E: '))
    .map((line) => line.slice(3).trim());
}
