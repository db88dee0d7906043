/**
 * Signs notifications (the sender authentication the A2A guide on push suggests): a JWT per attempt,
 * in its own header so the config's `Authorization` stays as the receiver asked. Receivers verify it
 * with the public key the module serves in its JWKS (found by `kid`).
 */
import { createHash, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { A2AConfigurationError } from '../config/a2a-configuration.error.js';
import type { ResolvedPushSigning } from './push-options.js';

/**
 * Header that carries the JWT of a signed notification.
 * @publicApi
 */
export const NOTIFICATION_SIGNATURE_HEADER = 'X-A2A-Notification-Signature';

/** What one JWT is about. */
export interface NotificationClaims {
  /** `iss`: the signing option's `issuer`, else the agent's card URL. */
  issuer: string;
  /** `aud`: the webhook URL without query or fragment (those may hold secrets; the JWT may be logged). */
  audience: string;
  taskId: string;
  /** The exact body sent: its SHA-256 goes in claim `bodySha256`, binding the JWT to this notification. */
  body: string;
  /** Seconds since the epoch. */
  nowSeconds: number;
}

/**
 * Claims: `iss`, `aud`, `iat`, `exp` (`iat` + `expiresInSeconds`), `jti` (unique per attempt: a
 * receiver that tracks `jti` rejects a replayed request, while `webhook-id` stays the same across
 * retries for deduplication), `taskId` and `bodySha256` (base64url SHA-256 of the body). Header:
 * `alg`, `kid`, `typ: JWT`.
 * @publicApi
 */
export class NotificationSigner {
  constructor(private readonly signing: ResolvedPushSigning) {}

  get kid(): string {
    return this.signing.kid;
  }

  /** The configured issuer, if any (else the caller passes the agent's card URL). */
  get issuer(): string | undefined {
    return this.signing.issuer;
  }

  async sign(claims: NotificationClaims): Promise<string> {
    return new SignJWT({ taskId: claims.taskId, bodySha256: createHash('sha256').update(claims.body).digest('base64url') })
      .setProtectedHeader({ alg: this.signing.alg, kid: this.signing.kid, typ: 'JWT' })
      .setIssuer(claims.issuer)
      .setAudience(claims.audience)
      .setIssuedAt(claims.nowSeconds)
      .setExpirationTime(claims.nowSeconds + this.signing.expiresInSeconds)
      .setJti(randomUUID())
      .sign(this.signing.key);
  }

  /**
   * Signs once at start-up, so a key that cannot sign fails the start, not every notification.
   * @throws A2AConfigurationError
   */
  async selfTest(): Promise<void> {
    try {
      await this.sign({ issuer: 'urn:self-test', audience: 'urn:self-test', taskId: 'self-test', body: '', nowSeconds: Math.floor(Date.now() / 1000) });
    } catch (error) {
      // jose's messages name the key type problem, never key material
      throw new A2AConfigurationError([`push.signing: key "${this.signing.kid}" cannot sign with ${this.signing.alg}: ${(error as Error).message}`]);
    }
  }
}
