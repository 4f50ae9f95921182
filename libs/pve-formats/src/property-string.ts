/**
 * PVE's property strings (`virtio=BC:24:11:0A:1B:2C,bridge=vmbr0`, `local:32,ssd=1`): comma-separated
 * `key=value` items, where the first item may be a bare value for the format's default key.
 */

export class PropertyStringError extends Error {
  override name = 'PropertyStringError';
}

/**
 * Parses `text`; a bare first item becomes `defaultKey`'s value. Blank items are skipped, as PVE
 * skips them (clients send `file=local:cloudinit,`). Refuses a key given twice and a bare value
 * anywhere but first.
 */
export function parseProperties(text: string, options: { readonly defaultKey?: string } = {}): Map<string, string> {
  const properties = new Map<string, string>();
  text
    .split(',')
    .filter((item) => item.trim() !== '')
    .forEach((item, index) => {
      const equals = item.indexOf('=');
      let key: string;
      let value: string;
      if (equals !== -1) [key, value] = [item.slice(0, equals), item.slice(equals + 1)];
      else if (index === 0 && options.defaultKey !== undefined) [key, value] = [options.defaultKey, item];
      else throw new PropertyStringError(`item '${item}' has no key (key=value)`);
      if (properties.has(key)) throw new PropertyStringError(`gives '${key}' more than once`);
      properties.set(key, value);
    });
  return properties;
}
