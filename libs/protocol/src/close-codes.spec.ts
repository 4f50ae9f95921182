import { CLOSE_CODES } from './close-codes.js';

describe('CLOSE_CODES', () => {
  it('are distinct codes in the websocket application range 4000-4999', () => {
    const codes = Object.values(CLOSE_CODES);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(code >= 4000 && code <= 4999).toBe(true);
  });
});
