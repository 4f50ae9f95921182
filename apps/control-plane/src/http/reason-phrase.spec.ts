import { reasonPhrase } from './reason-phrase.js';

describe('reasonPhrase', () => {
  it('keeps a one-line message as it is', () => {
    expect(reasonPhrase('VM 100 does not exist')).toBe('VM 100 does not exist');
  });

  it('keeps only the first line: a CR would break the status line', () => {
    expect(reasonPhrase('first\r\nsecond')).toBe('first');
    expect(reasonPhrase('first\rsecond')).toBe('first');
  });

  it('replaces what a status line cannot carry', () => {
    expect(reasonPhrase('naïve\tname')).toBe('na?ve?name');
  });

  it('shortens very long messages and never answers an empty phrase', () => {
    expect(reasonPhrase('x'.repeat(1000))).toHaveLength(400);
    expect(reasonPhrase('\n')).toBe('error');
  });
});
