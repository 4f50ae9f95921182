/** A PVE property string's items (`model=i6300esb,action=reset`), its first bare item under `defaultKey`. */
export function propertyItems(value: string, defaultKey: string): Map<string, string> {
  return new Map(
    value.split(',').map((item, index) => {
      const equals = item.indexOf('=');
      return equals < 0 && index === 0 ? [defaultKey, item] : [item.slice(0, equals), item.slice(equals + 1)];
    }),
  );
}
