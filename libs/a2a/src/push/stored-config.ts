/** A config between the wire and the store: secrets sealed on the way in, opened for delivery, redacted for answers. */
import { PROTOCOL_VERSION, type TaskPushNotificationConfig } from '../protocol/types.js';
import type { TaskScope } from '../tasks/task-store.js';
import type { StoredPushConfig } from './push-config-store.js';
import type { SecretBox, SecretContexts } from './secret-box.js';

/** What Get and List show in place of a stored `token` or `authentication.credentials`. @publicApi */
export const REDACTED_SECRET = '***';

/**
 * The additional authenticated data of a config's sealed secrets: its whole identity, and where
 * and how the secret is sent (URL and authentication scheme), so rewriting the stored URL cannot
 * send a decrypted credential elsewhere.
 */
function secretContext(scope: TaskScope, config: Pick<StoredPushConfig, 'taskId' | 'id' | 'url' | 'authentication'>, field: string): SecretContexts {
  const identity = [scope.agent, scope.tenant, scope.subject, config.taskId, config.id, field];
  return { v2: JSON.stringify([...identity, config.url, config.authentication?.scheme ?? '']), v1: JSON.stringify(identity) };
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

export function sealConfig(
  box: SecretBox,
  scope: TaskScope,
  taskId: string,
  id: string,
  config: TaskPushNotificationConfig,
  now: number,
  protocolVersion?: string,
): StoredPushConfig {
  return {
    id,
    taskId,
    url: config.url,
    ...withSecrets(config, (value, field) => box.seal(value, secretContext(scope, { ...config, taskId, id }, field).v2)),
    ...(protocolVersion === undefined || protocolVersion === PROTOCOL_VERSION ? {} : { protocolVersion }),
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
    ...withSecrets(stored, (value, field) => box.open(value, secretContext(scope, stored, field))),
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
