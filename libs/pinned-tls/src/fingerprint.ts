const FINGERPRINT = /^[0-9A-F]{2}(?::[0-9A-F]{2}){31}$/;

/**
 * A SHA-256 certificate fingerprint in the form Node's `X509Certificate.fingerprint256` and the
 * control plane print it (`AB:CD:...:EF`, 32 upper-case hex bytes), also accepted without colons or
 * in lower case as other tools print it; undefined when the text is no such fingerprint.
 */
export function parseFingerprint(text: string): string | undefined {
  const normalized = text
    .trim()
    .toUpperCase()
    .replace(/:/g, '')
    .replace(/(..)(?!$)/g, '$1:');
  return FINGERPRINT.test(normalized) ? normalized : undefined;
}
