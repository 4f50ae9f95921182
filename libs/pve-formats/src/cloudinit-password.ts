import { sha512Crypt } from './sha512-crypt.js';
import { ValueError, type ValueRule } from './value-rules.js';

/** A crypt(3) hash as cloud-init takes it (MD5, bcrypt, SHA-256, SHA-512): PVE stores one given as it is. */
const CRYPT_HASH = /^\$(?:[156]|2[ay])(?:\$[^$\s]+){2}/;

/** `cipassword`: stored hashed (SHA-512 crypt) as PVE stores it, so the password itself is never kept; read back masked. */
export const CLOUDINIT_PASSWORD: ValueRule = {
  description: 'Cloud-init password of the user: stored as a SHA-512 crypt hash (a crypt hash given is kept as it is), read back masked.',
  type: 'string',
  parse(value) {
    if (value.length > 512 || /[\x00-\x1f\x7f]/.test(value))
      throw new ValueError('must be at most 512 characters, without control characters');
    return CRYPT_HASH.test(value) ? value : sha512Crypt(value);
  },
};
