import { createHash, randomBytes } from 'node:crypto';

/*
 * SHA-512 crypt (`$6$<salt>$<hash>`), the password hash glibc's crypt(3) and /etc/shadow use
 * (Ulrich Drepper's "Unix crypt using SHA-256 and SHA-512", with its default 5000 rounds). A
 * container's root password is hashed here, so the password itself never leaves the control plane.
 */

const ALPHABET = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ROUNDS = 5000;

export function sha512Crypt(password: string, salt = randomSalt()): string {
  if (!/^[./0-9A-Za-z]{1,16}$/.test(salt)) throw new Error('a SHA-512 crypt salt is 1 to 16 characters of ./0-9A-Za-z');
  const p = Buffer.from(password, 'utf8');
  const s = Buffer.from(salt, 'ascii');
  const b = sha512(p, s, p);
  const a = createHash('sha512').update(p).update(s);
  a.update(repeated(b, p.length));
  for (let n = p.length; n > 0; n >>= 1) a.update(n & 1 ? b : p);
  let digest = a.digest();
  const pBytes = repeated(sha512(...Array<Buffer>(p.length).fill(p)), p.length);
  const sBytes = repeated(sha512(...Array<Buffer>(16 + (digest[0] as number)).fill(s)), s.length);
  for (let round = 0; round < ROUNDS; round++) {
    const c = createHash('sha512');
    c.update(round & 1 ? pBytes : digest);
    if (round % 3 !== 0) c.update(sBytes);
    if (round % 7 !== 0) c.update(pBytes);
    c.update(round & 1 ? digest : pBytes);
    digest = c.digest();
  }
  return `$6$${salt}$${encode(digest)}`;
}

function sha512(...parts: Buffer[]): Buffer {
  const hash = createHash('sha512');
  for (const part of parts) hash.update(part);
  return hash.digest();
}

/** `bytes` repeated (whole or in part) to `length` bytes. */
function repeated(bytes: Buffer, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let offset = 0; offset < length; offset += bytes.length) bytes.copy(out, offset, 0, Math.min(bytes.length, length - offset));
  return out;
}

/** The algorithm's own order of the 64 digest bytes, 3 at a time, each group 4 characters. */
function encode(digest: Buffer): string {
  let out = '';
  for (let k = 0; k < 21; k++) {
    const group = [k, k + 21, k + 42];
    const rotated = [...group.slice(k % 3), ...group.slice(0, k % 3)];
    out += chars(
      ((digest[rotated[0] as number] as number) << 16) |
        ((digest[rotated[1] as number] as number) << 8) |
        (digest[rotated[2] as number] as number),
      4,
    );
  }
  return out + chars(digest[63] as number, 2);
}

function chars(word: number, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++, word >>= 6) out += ALPHABET[word & 0x3f];
  return out;
}

function randomSalt(): string {
  return [...randomBytes(16)].map((byte) => ALPHABET[byte & 0x3f]).join('');
}
