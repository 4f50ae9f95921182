import { StreamableFile } from '@nestjs/common';
import { buffer } from 'node:stream/consumers';
import { JsonText, JsonTexts } from './json-text.js';

describe('JSON sent as it was kept', () => {
  it('wraps an array of JSON values in the envelope, an empty one too', () => {
    const json = (value: unknown) => Buffer.from(JSON.stringify(value));
    expect(
      JSON.parse(
        JsonText.array([json({ vmid: 100 }), json({ vmid: 101 })])
          .enveloped()
          .toString(),
      ),
    ).toEqual({
      data: [{ vmid: 100 }, { vmid: 101 }],
    });
    expect(
      JsonText.array([json('é')])
        .enveloped()
        .toString(),
    ).toBe('{"data":["é"]}');
    expect(JsonText.array([]).enveloped().toString()).toBe('{"data":[]}');
  });

  it('streams a list larger than 256 KiB in slices of it, with its length', async () => {
    // Entries of all sizes, one of them larger than a slice, so that entries and separators fall across slice boundaries.
    const entries = Array.from({ length: 3000 }, (_, i) => ({ vmid: i, name: 'ä'.repeat(i % 300) }));
    entries.push({ vmid: -1, name: 'x'.repeat(600 * 1024) });
    const sent = JsonText.array(entries.map((entry) => Buffer.from(JSON.stringify(entry)))).enveloped();
    expect(sent).toBeInstanceOf(StreamableFile);
    const file = sent as StreamableFile;
    const slices: Buffer[] = [];
    for await (const slice of file.getStream()) slices.push(slice as Buffer);
    const body = Buffer.concat(slices);
    expect(slices.slice(0, -1).every((slice) => slice.length === 256 * 1024)).toBe(true);
    expect(file.getHeaders().length).toBe(body.length);
    expect(body.toString()).toBe(JSON.stringify({ data: entries }));
  });

  it('sends a list of exactly 256 KiB as one buffer', async () => {
    const item = Buffer.from(`"${'a'.repeat(256 * 1024 - '{"data":[""]}'.length)}"`);
    const sent = JsonText.array([item]).enveloped();
    expect(Buffer.isBuffer(sent)).toBe(true);
    expect((sent as Buffer).length).toBe(256 * 1024);
    const larger = JsonText.array([item, Buffer.from('1')]).enveloped() as StreamableFile;
    expect((await buffer(larger.getStream())).toString()).toBe(`{"data":[${item.toString()},1]}`);
  });

  it('makes an entry again only when its key or one of the values it was made from is another', () => {
    const texts = new JsonTexts();
    const row = {};
    const runtime = { cpu: 0.5 };
    let made = 0;
    const text = (key: object, a: unknown, b: unknown) => texts.text(key, a, b, () => ({ made: ++made })).toString();
    expect(text(row, runtime, 'web')).toBe('{"made":1}');
    expect(text(row, runtime, 'web')).toBe('{"made":1}');
    expect(text(row, { ...runtime }, 'web')).toBe('{"made":2}');
    expect(text(row, runtime, 'db')).toBe('{"made":3}');
    expect(text({}, runtime, 'db')).toBe('{"made":4}');
  });
});
