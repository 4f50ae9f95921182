/*
 * /etc/network/interfaces (interfaces(5), ifupdown2) as PVE edits it: the file is cut into
 * stanzas, and a rewrite re-emits every stanza it did not touch exactly as it was read, so
 * comments, `source` lines, mappings and options Corral does not know survive.
 */

/** Lines that start a stanza; any other non-comment line is an option of the `iface` above it. */
const STANZA = /^\s*(?:iface|mapping|auto|allow-[\w-]+|source|source-directory|rename)(?:\s|$)/;
const BLANK = /^\s*$/;
const COMMENT = /^\s*#/;

/** One piece of the file, in file order. */
export type Chunk =
  /** Lines kept verbatim: comments between stanzas, blank lines, `source`, `mapping` and its lines. */
  | { readonly kind: 'text'; readonly lines: readonly string[] }
  /** `auto a b` or `allow-hotplug a`: the names it brings up. */
  | { readonly kind: 'auto'; readonly keyword: string; readonly names: readonly string[]; readonly line: string }
  | IfaceStanza;

export interface IfaceStanza {
  readonly kind: 'iface';
  readonly name: string;
  /** `inet` or `inet6`. */
  readonly family: string;
  readonly method: string;
  /** Options in file order, names as written (`bridge_ports` or `bridge-ports`). */
  readonly options: readonly (readonly [string, string])[];
  /** The `#` lines inside the stanza (PVE's interface comments), without the `#`. */
  readonly comments: readonly string[];
  readonly lines: readonly string[];
}

export interface InterfacesFile {
  readonly chunks: readonly Chunk[];
}

export function parseInterfacesFile(text: string): InterfacesFile {
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const chunks: Chunk[] = [];
  const pushText = (line: string) => {
    const last = chunks.at(-1);
    if (last?.kind === 'text') chunks[chunks.length - 1] = { kind: 'text', lines: [...last.lines, line] };
    else chunks.push({ kind: 'text', lines: [line] });
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    const [keyword = '', ...words] = line.trim().split(/\s+/);
    if (keyword === 'auto' || keyword.startsWith('allow-')) {
      chunks.push({ kind: 'auto', keyword, names: words, line });
      i++;
    } else if (keyword === 'iface' && words.length >= 3) {
      const end = stanzaEnd(lines, i);
      chunks.push(ifaceStanza(lines.slice(i, end)));
      i = end;
    } else {
      pushText(line);
      i++;
    }
  }
  return { chunks };
}

/**
 * Where an iface stanza that starts at `start` ends: after its last option, and after the comment
 * lines that follow it with no blank line between (PVE's comments). What follows a blank line up to
 * the next stanza is loose text, so deleting the interface leaves it in place.
 */
function stanzaEnd(lines: readonly string[], start: number): number {
  let end = start + 1;
  let blankSeen = false;
  for (let j = start + 1; j < lines.length && !STANZA.test(lines[j] as string); j++) {
    const line = lines[j] as string;
    if (BLANK.test(line)) blankSeen = true;
    else if (!COMMENT.test(line) || !blankSeen) {
      end = j + 1;
      blankSeen = false;
    }
  }
  return end;
}

function ifaceStanza(lines: readonly string[]): IfaceStanza {
  const [, name = '', family = '', method = ''] = (lines[0] as string).trim().split(/\s+/);
  const options: (readonly [string, string])[] = [];
  const comments: string[] = [];
  for (const line of lines.slice(1)) {
    if (BLANK.test(line)) continue;
    if (COMMENT.test(line)) comments.push(line.replace(/^\s*#/, '').trimEnd());
    else {
      const [, key = '', value = ''] = /^\s*(\S+)\s*(.*?)\s*$/.exec(line) ?? [];
      options.push([key, value]);
    }
  }
  return { kind: 'iface', name, family, method, options, comments, lines };
}

export function renderInterfacesFile(file: InterfacesFile): string {
  const lines = file.chunks.flatMap(chunkLines);
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function chunkLines(chunk: Chunk): readonly string[] {
  return chunk.kind === 'auto' ? [chunk.line] : chunk.lines;
}

/** An option's value by its name, `bridge-ports` also matching the older `bridge_ports`. */
export function optionValue(stanza: IfaceStanza | undefined, name: string): string | undefined {
  return stanza?.options.find(([key]) => key.replace(/_/g, '-') === name)?.[1];
}

/** Every interface the file defines, with its `inet` and `inet6` stanzas and whether `auto` brings it up. */
export interface FileInterface {
  readonly name: string;
  readonly autostart: boolean;
  readonly inet?: IfaceStanza;
  readonly inet6?: IfaceStanza;
}

export function fileInterfaces(file: InterfacesFile): Map<string, FileInterface> {
  const autostarted = new Set(
    file.chunks.flatMap((chunk) =>
      chunk.kind === 'auto' && (chunk.keyword === 'auto' || chunk.keyword === 'allow-auto') ? chunk.names : [],
    ),
  );
  const interfaces = new Map<string, FileInterface>();
  for (const chunk of file.chunks) {
    if (chunk.kind !== 'iface') continue;
    const known = interfaces.get(chunk.name) ?? { name: chunk.name, autostart: autostarted.has(chunk.name) };
    // A second stanza of the same family adds options in ifupdown2; the first one describes it here.
    if (chunk.family === 'inet6') interfaces.set(chunk.name, { inet6: chunk, ...known });
    else if (chunk.family === 'inet') interfaces.set(chunk.name, { inet: chunk, ...known });
  }
  return interfaces;
}

/** The file with a new stanza text appended after one blank line. */
export function appendStanzas(file: InterfacesFile, text: string): InterfacesFile {
  const current = renderInterfacesFile(file);
  const separator = current === '' || current.endsWith('\n\n') ? '' : '\n';
  return parseInterfacesFile(`${current}${separator}${text}`);
}

/**
 * The file without `name`'s stanzas and without `name` on its `auto`/`allow-*` lines (a line
 * left with no name goes). Where the removal leaves two blank lines together, one goes too.
 */
export function removeInterface(file: InterfacesFile, name: string): InterfacesFile {
  const kept: { line: string; removedBefore: boolean }[] = [];
  let removed = false;
  for (const chunk of file.chunks) {
    const autoNames = chunk.kind === 'auto' ? chunk.names.filter((other) => other !== name) : [];
    if (chunk.kind === 'iface' && chunk.name === name) removed = true;
    else if (chunk.kind === 'auto' && autoNames.length === 0) removed = true;
    else if (chunk.kind === 'auto' && autoNames.length !== chunk.names.length) {
      kept.push({ line: [chunk.keyword, ...autoNames].join(' '), removedBefore: removed });
      removed = false;
    } else
      for (const line of chunkLines(chunk)) {
        kept.push({ line, removedBefore: removed });
        removed = false;
      }
  }
  const lines = kept
    .filter((entry, index) => !(entry.removedBefore && BLANK.test(entry.line) && (index === 0 || BLANK.test(kept[index - 1]?.line ?? ''))))
    .map((entry) => entry.line);
  // A removal at the end leaves no trailing blank line behind.
  while (removed && lines.length > 0 && BLANK.test(lines.at(-1) ?? '')) lines.pop();
  return parseInterfacesFile(lines.length === 0 ? '' : `${lines.join('\n')}\n`);
}
