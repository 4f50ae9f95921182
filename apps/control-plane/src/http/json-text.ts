/**
 * A result already serialised, as UTF-8 JSON: a large list built from entries each kept as JSON
 * (`JsonTexts`), sent without being serialised or encoded again. `T` is the value the JSON is, so
 * that the endpoint's declared result still types it.
 */
export class JsonText<T> {
  declare readonly value?: T;

  private constructor(private readonly chunks: readonly Buffer[]) {}

  /** The JSON array of these JSON values. */
  static array<E>(items: readonly Buffer[]): JsonText<E[]> {
    const chunks: Buffer[] = [OPEN];
    for (const item of items) chunks.push(item, COMMA);
    // The last item's comma is the array's end.
    if (items.length > 0) chunks.pop();
    chunks.push(CLOSE);
    return new JsonText(chunks);
  }

  /** The envelope `{"data": <this>}`, in one buffer. */
  enveloped(): Buffer {
    return Buffer.concat([DATA, ...this.chunks, END]);
  }
}

const [OPEN, COMMA, CLOSE, DATA, END] = ['[', ',', ']', '{"data":', '}'].map((text) => Buffer.from(text)) as [
  Buffer,
  Buffer,
  Buffer,
  Buffer,
  Buffer,
];

/**
 * JSON kept by key (an object: a guest's row) while the two values it was also made from (compared
 * by identity) stay the same: a list asked again serialises only the entries that changed.
 */
export class JsonTexts {
  private readonly texts = new WeakMap<object, { readonly a: unknown; readonly b: unknown; readonly json: Buffer }>();

  text(key: object, a: unknown, b: unknown, make: () => unknown): Buffer {
    const known = this.texts.get(key);
    if (known !== undefined && known.a === a && known.b === b) return known.json;
    const json = Buffer.from(JSON.stringify(make()));
    this.texts.set(key, { a, b, json });
    return json;
  }
}
