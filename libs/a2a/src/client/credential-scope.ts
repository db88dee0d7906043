/**
 * Where a client's own headers (its credentials) may go. A card is the peer's word, and an
 * unsigned card can be served by anyone who can answer at the card URL (or a cache in between):
 * if the client followed it with its credentials, whoever wrote the card would receive them at
 * any origin it names. So the caller's headers go to the origin the user configured (the card
 * URL's), to origins the user allowed, and to the origins of a card whose signature verified
 * against keys the user trusts; to no other. Discovery itself (the card, the JWKS) sends them
 * only when asked (`discoveryHeaders`).
 *
 * Every transport asks the same question before it adds the caller's headers, so a binding
 * added later (v0.3) follows the same rule by calling {@link CredentialScope.check}.
 */
import { CredentialsWithheldError } from './client-errors.js';

/** @publicApi */
export interface CredentialScopeOptions {
  /**
   * Origins besides the card's own (`https://api.example.com`, or any URL of it: only the origin
   * counts) where the client's headers may go when the card names an interface there without a
   * signature that verified against your keys (`verify`).
   */
  credentialOrigins?: readonly (string | URL)[];
}

/** The origins of `credentialOrigins`, or the problems with them (option checking lists every one). */
export function credentialOriginsOf(values: readonly (string | URL)[] | undefined, name: string, problems: string[]): string[] {
  if (values === undefined) return [];
  if (!Array.isArray(values)) {
    problems.push(`${name}: must be a list of origins (e.g. ["https://api.example.com"])`);
    return [];
  }
  const out: string[] = [];
  values.forEach((value, i) => {
    let url: URL | undefined;
    try {
      url = new URL(String(value));
    } catch {
      url = undefined;
    }
    // never the value in the message: a URL given by mistake may carry a secret
    if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) problems.push(`${name}: entry ${i} must be an absolute http(s) URL or origin`);
    else out.push(url.origin);
  });
  return out;
}

/**
 * The origins one client may send its headers to.
 * @internal
 */
export class CredentialScope {
  private readonly allowed: ReadonlySet<string>;

  /**
   * @param configured the origin the user configured (the card URL's); `null` for a card given
   *   in hand, whose interfaces are then the user's own configuration
   * @param allowed origins the user allowed besides it
   */
  constructor(
    private readonly configured: string | null,
    allowed: readonly string[],
  ) {
    this.allowed = new Set(allowed);
  }

  /** Whether the caller's headers may go to `url`, given whether the card's signature verified against trusted keys. */
  allows(url: URL, cardVerified: boolean): boolean {
    return this.configured === null || cardVerified || url.origin === this.configured || this.allowed.has(url.origin);
  }

  /**
   * Passes when the caller's `headers` for `url` may be sent, or when there are none to send.
   * @throws CredentialsWithheldError before anything is sent, naming the origins (never a header)
   */
  check(url: URL, cardVerified: boolean, headers: Readonly<Record<string, string>>): void {
    if (Object.keys(headers).length === 0 || this.allows(url, cardVerified)) return;
    throw new CredentialsWithheldError(url.origin, this.configured!);
  }
}
