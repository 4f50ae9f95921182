export { connectPinned, FingerprintMismatch, type PinnedTlsOptions } from './connect-pinned.js';
export { parseFingerprint } from './fingerprint.js';
