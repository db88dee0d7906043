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

export function sealConfig(box: SecretBox, scope: TaskScope, taskId: string, id: string, config: TaskPushNotificationConfig, now: number): StoredPushConfig {
  const auth = config.authentication;
  return {
    id,
    taskId,
    url: config.url,
    ...(config.token ? { token: box.seal(config.token, secretContext(scope, taskId, id, 'token')) } : {}),
    ...(auth
      ? {
          authentication: {
            scheme: auth.scheme,
            ...(auth.credentials ? { credentials: box.seal(auth.credentials, secretContext(scope, taskId, id, 'credentials')) } : {}),
          },
        }
      : {}),
    createdAt: now,
  };
}

/**
 * The config as registered, secrets included: for delivery only.
 * @throws SealedSecretError when a secret cannot be opened (another key, or altered)
 */
export function openConfig(box: SecretBox, scope: TaskScope, stored: StoredPushConfig): TaskPushNotificationConfig {
  const auth = stored.authentication;
  return {
    id: stored.id,
    taskId: stored.taskId,
    url: stored.url,
    ...(stored.token ? { token: box.open(stored.token, secretContext(scope, stored.taskId, stored.id, 'token')) } : {}),
    ...(auth
      ? {
          authentication: {
            scheme: auth.scheme,
            ...(auth.credentials ? { credentials: box.open(auth.credentials, secretContext(scope, stored.taskId, stored.id, 'credentials')) } : {}),
          },
        }
      : {}),
  };
}

/** The config as Get and List answer it: secrets replaced by {@link REDACTED_SECRET}, nothing opened. */
export function redactedConfig(scope: TaskScope, stored: StoredPushConfig): TaskPushNotificationConfig {
  const auth = stored.authentication;
  return {
    ...(scope.tenant ? { tenant: scope.tenant } : {}),
    id: stored.id,
    taskId: stored.taskId,
    url: stored.url,
    ...(stored.token ? { token: REDACTED_SECRET } : {}),
    ...(auth ? { authentication: { scheme: auth.scheme, ...(auth.credentials ? { credentials: REDACTED_SECRET } : {}) } } : {}),
  };
}
