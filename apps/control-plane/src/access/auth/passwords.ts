import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/*
 * Passwords are stored as scrypt PHC strings, `$scrypt$ln=15,r=8,p=3$<salt>$<hash>` (base64 without
 * padding): OWASP's scrypt setting of 32 MiB and 3 lanes, from Node's own crypto, so no native
 * addon has to load on the host (argon2's prebuilt addon crashed Node on some machines).
 */

const COST = { ln: 15, r: 8, p: 3 } as const;
const KEY_BYTES = 32;
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function derive(password: string, salt: Buffer, cost: { ln: number; r: number; p: number }, length: number): Promise<Buffer> {
  const N = 2 ** cost.ln;
  // Room for scrypt's 128 * N * r bytes and a little more.
  const options: ScryptOptions = { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST, KEY_BYTES);
  return `$scrypt$ln=${COST.ln},r=${COST.r},p=${COST.p}$${b64(salt)}$${b64(key)}`;
}

let decoy: Promise<string> | undefined;

/**
 * Whether `password` matches `hash`. Without a hash (an unknown user, or one without a password)
 * a decoy hash is verified instead, so that the answer takes as long either way.
 */
export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  if (hash !== null) return matches(hash, password);
  decoy ??= hashPassword(`decoy-${Math.random()}`);
  await matches(await decoy, password);
  return false;
}

async function matches(hash: string, password: string): Promise<boolean> {
  const match = PHC.exec(hash);
  if (!match) return false;
  const [, ln = '', r = '', p = '', salt = '', expected = ''] = match;
  const cost = { ln: Number(ln), r: Number(r), p: Number(p) };
  // Only costs this code could have written: a stored string is no way to make a login take forever.
  if (cost.ln < 10 || cost.ln > 20 || cost.r < 1 || cost.r > 32 || cost.p < 1 || cost.p > 16) return false;
  const want = Buffer.from(expected, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), cost, want.length);
  return want.length >= 16 && timingSafeEqual(key, want);
}
