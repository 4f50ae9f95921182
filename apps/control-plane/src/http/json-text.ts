import { StreamableFile } from '@nestjs/common';
import { Readable } from 'node:stream';
import { JSON_CONTENT_TYPE } from './json-content-type.js';

/** How much of a large body is put together and written at a time. */
const SLICE_BYTES = 256 * 1024;

/**
 * A result already serialised, as UTF-8 JSON: a large list built from entries each kept as JSON
 * (`JsonTexts`), sent without being serialised or encoded again. `T` is the value the JSON is, so
 * that the endpoint's declared result still types it.
 */
export class JsonText<T> {
  declare readonly value?: T;

  private constructor(private readonly items: readonly Buffer[]) {}

  /** The JSON array of these JSON values. */
  static array<E>(items: readonly Buffer[]): JsonText<E[]> {
    return new JsonText(items);
  }

  /**
   * The envelope `{"data": <this>}`: one buffer, or beyond 256 KiB a stream of 256 KiB slices of it,
   * each put together when the connection takes more. A large list then never holds the event loop
   * for its whole body: requests sent at once get their bodies side by side, and none is copied
   * whole into memory.
   */
  enveloped(): Buffer | StreamableFile {
    const length = this.items.reduce(
      (sum, item) => sum + item.length,
      DATA_OPEN.length + CLOSE_END.length + Math.max(this.items.length - 1, 0),
    );
    const slices = slicesOf(this.pieces(), length);
    if (length <= SLICE_BYTES) return slices.next().value ?? Buffer.alloc(0);
    return new StreamableFile(Readable.from(slices, { objectMode: false, highWaterMark: SLICE_BYTES }), {
      type: JSON_CONTENT_TYPE,
      length,
    });
  }

  private *pieces(): Generator<Buffer> {
    yield DATA_OPEN;
    for (let i = 0; i < this.items.length; i++) {
      if (i > 0) yield COMMA;
      yield this.items[i] as Buffer;
    }
    yield CLOSE_END;
  }
}

const [DATA_OPEN, COMMA, CLOSE_END] = ['{"data":[', ',', ']}'].map((text) => Buffer.from(text)) as [Buffer, Buffer, Buffer];

/** The pieces, `length` bytes in all, copied into slices of SLICE_BYTES (the last one shorter). */
function* slicesOf(pieces: Iterable<Buffer>, length: number): Generator<Buffer, undefined> {
  let left = length;
  let slice = Buffer.allocUnsafe(Math.min(SLICE_BYTES, left));
  let at = 0;
  for (const piece of pieces) {
    for (let from = 0; from < piece.length;) {
      const copied = piece.copy(slice, at, from);
      from += copied;
      at += copied;
      if (at < slice.length) continue;
      yield slice;
      left -= at;
      if (left === 0) return;
      slice = Buffer.allocUnsafe(Math.min(SLICE_BYTES, left));
      at = 0;
    }
  }
}

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
