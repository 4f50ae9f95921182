import { Inject, Injectable } from '@nestjs/common';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { CONFIG, type Config, type OidcConfig } from '../../config/config.js';

/**
 * OAuth 2.0 bearer tokens: JWTs signed by the configured issuer, checked for signature (its JWKS,
 * from the configured URL or the issuer's discovery document), issuer, audience, expiry (which
 * they must have) and not-before. The user is `<claim value>@<realm>`; the authenticator decides
 * whether it may log in.
 */
@Injectable()
export class BearerTokens {
  private keys: Promise<JWTVerifyGetKey> | null = null;

  constructor(@Inject(CONFIG) private readonly config: Config) {}

  get realm(): string | null {
    return this.config.oidc?.realm ?? null;
  }

  /** The user id the token stands for, or null when it is not valid (or no issuer is configured). */
  async userOf(jwt: string): Promise<string | null> {
    const oidc = this.config.oidc;
    if (!oidc) return null;
    try {
      // A token without `exp` would never expire: refused.
      const { payload } = await jwtVerify(jwt, await this.keySet(oidc), {
        issuer: oidc.issuer,
        audience: oidc.audience,
        requiredClaims: ['exp'],
      });
      const name = payload[oidc.userClaim];
      return typeof name === 'string' && /^[^\s@:!]+$/.test(name) ? `${name}@${oidc.realm}` : null;
    } catch {
      return null;
    }
  }

  private keySet(oidc: OidcConfig): Promise<JWTVerifyGetKey> {
    const keys = (this.keys ??= this.locateKeys(oidc).then((url) => createRemoteJWKSet(url)));
    // A failed discovery is not kept: the next token tries again.
    keys.catch(() => {
      if (this.keys === keys) this.keys = null;
    });
    return keys;
  }

  private async locateKeys(oidc: OidcConfig): Promise<URL> {
    if (oidc.jwksUrl) return new URL(oidc.jwksUrl);
    const response = await fetch(new URL('.well-known/openid-configuration', oidc.issuer.endsWith('/') ? oidc.issuer : `${oidc.issuer}/`), {
      redirect: 'error',
      signal: AbortSignal.timeout(5000),
    });
    const document = (await response.json()) as { jwks_uri?: unknown };
    if (!response.ok || typeof document.jwks_uri !== 'string') throw new Error(`no jwks_uri in ${oidc.issuer}'s discovery document`);
    return new URL(document.jwks_uri);
  }
}
