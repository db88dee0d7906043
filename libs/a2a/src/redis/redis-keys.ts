/**
 * How the module names its Redis keys, whoever writes them (the task backend, push): every key
 * starts with the configured prefix, and a caller's scope appears in a key as its scope key.
 */

export const DEFAULT_KEY_PREFIX = 'a2a:';

/** One value as a key part: base64url, so any character is safe in a key and parts never run together. */
export function keyPart(value: string): string {
  return Buffer.from(value, 'utf8').toString('base64url');
}

/**
 * The scope key: agent, tenant and subject each as a {@link keyPart}, joined by `.`, so two scopes
 * never share a key.
 */
export function scopeKey(scope: { readonly agent: string; readonly tenant: string; readonly subject: string }): string {
  return `${keyPart(scope.agent)}.${keyPart(scope.tenant)}.${keyPart(scope.subject)}`;
}
