/** A config between the wire and the store: secrets sealed on the way in, opened for delivery, redacted for answers. */
import type { TaskPushNotificationConfig } from '../protocol/types.js';
import type { TaskScope } from '../tasks/task-store.js';
import type { StoredPushConfig } from './push-config-store.js';
import type { SecretBox } from './secret-box.js';

/** What Get and List show in place of a stored `token` or `authentication.credentials`. @publicApi */
export const REDACTED_SECRET = '***';

/** The additional authenticated data of a config's sealed secrets: its whole identity. */
function secretContext(scope: TaskScope, taskId: string, id: string, field: string): string {
  return JSON.stringify([scope.agent, scope.tenant, scope.subject, taskId, id, field]);
}

/** The `token` and `authentication` of a config, each secret in it passed through `secret`. */
function withSecrets(
  config: Pick<StoredPushConfig, 'token' | 'authentication'>,
  secret: (value: string, field: 'token' | 'credentials') => string,
): Pick<StoredPushConfig, 'token' | 'authentication'> {
  const auth = config.authentication;
  return {
    ...(config.token ? { token: secret(config.token, 'token') } : {}),
    ...(auth ? { authentication: { scheme: auth.scheme, ...(auth.credentials ? { credentials: secret(auth.credentials, 'credentials') } : {}) } } : {}),
  };
}

export function sealConfig(box: SecretBox, scope: TaskScope, taskId: string, id: string, config: TaskPushNotificationConfig, now: number): StoredPushConfig {
  return {
    id,
    taskId,
    url: config.url,
    ...withSecrets(config, (value, field) => box.seal(value, secretContext(scope, taskId, id, field))),
    createdAt: now,
  };
}

/**
 * The config as registered, secrets included: for delivery only.
 * @throws SealedSecretError when a secret cannot be opened (another key, or altered)
 */
export function openConfig(box: SecretBox, scope: TaskScope, stored: StoredPushConfig): TaskPushNotificationConfig {
  return {
    id: stored.id,
    taskId: stored.taskId,
    url: stored.url,
    ...withSecrets(stored, (value, field) => box.open(value, secretContext(scope, stored.taskId, stored.id, field))),
  };
}

/** The config as Get and List answer it: secrets replaced by {@link REDACTED_SECRET}, nothing opened. */
export function redactedConfig(scope: TaskScope, stored: StoredPushConfig): TaskPushNotificationConfig {
  return {
    ...(scope.tenant ? { tenant: scope.tenant } : {}),
    id: stored.id,
    taskId: stored.taskId,
    url: stored.url,
    ...withSecrets(stored, () => REDACTED_SECRET),
  };
}
