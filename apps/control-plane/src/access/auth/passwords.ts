import argon2 from 'argon2';

/** Passwords are stored as argon2id PHC strings (argon2's defaults: 64 MiB, 3 passes). */
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

let decoy: Promise<string> | undefined;

/**
 * Whether `password` matches `hash`. Without a hash (an unknown user, or one without a password)
 * a decoy hash is verified instead, so that the answer takes as long either way.
 */
export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  if (hash !== null) return argon2.verify(hash, password).catch(() => false);
  decoy ??= hashPassword(`decoy-${Math.random()}`);
  await argon2.verify(await decoy, password).catch(() => false);
  return false;
}
