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
