/**
 * The push-config operations with push on: webhook URLs checked by the egress policy at
 * registration, configs stored scoped like their task, secrets sealed at rest and redacted in answers.
 */
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { EgressRefusedError } from '../net/egress-errors.js';
import type { EgressPolicy } from '../net/egress-policy.js';
import { InvalidParamsError, ResourceExhaustedError, TaskNotFoundError, echoed, type FieldViolation } from '../protocol/errors.js';
import { isTerminalState, type ListTaskPushNotificationConfigsResponse, type TaskPushNotificationConfig } from '../protocol/types.js';
import type { TaskScope, TaskStore } from '../tasks/task-store.js';
import type { PushConfigStore } from './push-config-store.js';
import type { PushNotifications } from './push-notifications.js';
import type { SecretBox } from './secret-box.js';
import { redactedConfig, sealConfig } from './stored-config.js';

/** An HTTP auth scheme is a token (RFC 9110 §5.6.2): nothing that could end or split a header. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
/** Header-safe text: visible ASCII, space and tab (no CR/LF: no header injection). */
const HEADER_TEXT = /^[\t\x20-\x7e]*$/;
/** Config ids are chosen by clients: visible ASCII, bounded. */
const CONFIG_ID = /^[\x21-\x7e]{1,256}$/;
const MAX_URL_LENGTH = 2048;
const MAX_TOKEN_LENGTH = 4096;
const MAX_CREDENTIALS_LENGTH = 8192;

export interface PushNotificationServiceOptions {
  readonly maxConfigsPerTask: number;
  /** How long a finished task's configs are kept (see `configRetentionMs`). */
  readonly finishedTaskConfigTtlMs: number;
  /** Marks a task due in the push outbox: for events committed while its new config was being stored. */
  readonly markDue?: (scope: TaskScope, taskId: string, seq: number, terminal: boolean) => Promise<void>;
}

/** @publicApi */
export class PushNotificationService implements PushNotifications {
  readonly enabled = true;

  constructor(
    private readonly configs: PushConfigStore,
    private readonly tasks: TaskStore,
    private readonly policy: EgressPolicy,
    private readonly box: SecretBox,
    private readonly options: PushNotificationServiceOptions,
    private readonly now: () => number = Date.now,
    private readonly newId: () => string = randomUUID,
  ) {}

  /**
   * Every field checked, every problem named; the URL is checked by the egress policy, its host
   * resolved (a name that does not resolve is refused), and named only in redacted form.
   * @throws InvalidParamsError
   */
  async validate(config: TaskPushNotificationConfig, field = 'url'): Promise<void> {
    const base = field.endsWith('url') ? field.slice(0, -'url'.length) : '';
    const violations: FieldViolation[] = [];
    const add = (name: string, description: string) => violations.push({ field: `${base}${name}`, description });
    if (config.id !== undefined && config.id !== '' && !CONFIG_ID.test(config.id)) add('id', 'must be 1 to 256 visible ASCII characters');
    if (config.token !== undefined) {
      if (config.token.length > MAX_TOKEN_LENGTH) add('token', `must be at most ${MAX_TOKEN_LENGTH} characters`);
      else if (!HEADER_TEXT.test(config.token)) add('token', 'must be printable ASCII (it is sent in a header)');
    }
    const auth = config.authentication;
    if (auth) {
      if (!TOKEN.test(auth.scheme)) add('authentication.scheme', 'must be an HTTP authentication scheme such as "Bearer" or "Basic"');
      if (auth.credentials !== undefined) {
        if (auth.credentials.length > MAX_CREDENTIALS_LENGTH) add('authentication.credentials', `must be at most ${MAX_CREDENTIALS_LENGTH} characters`);
        else if (!HEADER_TEXT.test(auth.credentials)) add('authentication.credentials', 'must be printable ASCII (it is sent in a header)');
      }
    }
    const urlProblem = config.url.length > MAX_URL_LENGTH ? `must be at most ${MAX_URL_LENGTH} characters` : await this.egressProblem(config.url);
    if (urlProblem) add('url', urlProblem);
    if (violations.length > 0) throw new InvalidParamsError(violations);
  }

  /** @throws ResourceExhaustedError when the task has as many configs as it may */
  async create(scope: TaskScope, taskId: string, config: TaskPushNotificationConfig, options: { protocolVersion?: string; newTask?: boolean } = {}): Promise<TaskPushNotificationConfig> {
    const id = config.id || this.newId();
    // it hears the events after the task's last one now (a new task's: from the first on; its id is
    // nobody else's yet, so no commit can come between here and its first: neither read is needed)
    const afterSeq = options.newTask ? 0 : ((await this.tasks.get(scope, taskId))?.seq ?? 0);
    const stored = { ...sealConfig(this.box, scope, taskId, id, config, this.now(), options.protocolVersion), afterSeq };
    const put = await this.configs.put(scope, stored, this.options.maxConfigsPerTask);
    if (put === 'full') {
      throw new ResourceExhaustedError(`Task ${echoed(taskId)} already has ${this.options.maxConfigsPerTask} push notification configs; delete one first`);
    }
    const task = options.newTask ? undefined : await this.tasks.get(scope, taskId);
    const terminal = task !== undefined && isTerminalState(task.task.status.state);
    // a commit between the two reads did not see this config: the outbox learns of its events here
    if (task && task.seq > afterSeq) await this.options.markDue?.(scope, taskId, task.seq, terminal);
    // a config added to a finished task goes when the task's others would
    if (terminal) await this.configs.expire(scope, taskId, this.options.finishedTaskConfigTtlMs);
    // the creator gets back what it sent (it knows the secrets); Get and List redact them
    const { tenant: _tenant, ...sent } = config;
    return { ...(scope.tenant ? { tenant: scope.tenant } : {}), ...sent, id, taskId };
  }

  async get(scope: TaskScope, taskId: string, id: string): Promise<TaskPushNotificationConfig> {
    const stored = await this.configs.get(scope, taskId, id);
    if (!stored) throw new TaskNotFoundError(`Push notification config ${echoed(id)} not found for task ${echoed(taskId)}`, { taskId: echoed(taskId) });
    return redactedConfig(scope, stored);
  }

  async list(scope: TaskScope, taskId: string, pageSize: number | undefined, pageToken: string | undefined): Promise<ListTaskPushNotificationConfigsResponse> {
    let after: string | undefined;
    if (pageToken) {
      after = Buffer.from(pageToken, 'base64url').toString('utf8');
      if (!after || Buffer.from(after, 'utf8').toString('base64url') !== pageToken) throw InvalidParamsError.field('pageToken', 'is not a token this server gave');
    }
    const all = (await this.configs.list(scope, taskId)).filter((c) => after === undefined || c.id > after);
    const page = pageSize && pageSize > 0 ? all.slice(0, pageSize) : all;
    const more = page.length < all.length;
    return {
      configs: page.map((c) => redactedConfig(scope, c)),
      nextPageToken: more ? Buffer.from(page[page.length - 1].id, 'utf8').toString('base64url') : '',
    };
  }

  async delete(scope: TaskScope, taskId: string, id: string): Promise<void> {
    await this.configs.delete(scope, taskId, id);
  }

  /** Why the egress policy refuses `url` (reason included, URL redacted), or undefined. */
  /**
   * What is wrong with the webhook URL, for the caller. What the URL itself says (scheme,
   * userinfo, a literal address, a refused name) is named with its reason; a refusal that comes
   * from resolving the host is not: "vm resolves to 127.0.0.1" would let any caller probe this
   * server's DNS. That detail goes to the log.
   */
  private async egressProblem(url: string): Promise<string | undefined> {
    let hostname: string;
    try {
      hostname = this.policy.checkUrl(url).hostname;
    } catch (error) {
      if (!(error instanceof EgressRefusedError)) throw error;
      return `${error.message} (reason: ${error.reason})`;
    }
    try {
      await this.policy.resolveAndCheck(hostname);
      return undefined;
    } catch (error) {
      if (!(error instanceof EgressRefusedError)) throw error;
      // the message names the host (never the URL's path or query) and what it resolved to
      PushNotificationService.logger.warn(`Webhook refused at registration: ${error.message} (reason: ${error.reason})`);
      return WEBHOOK_REFUSED;
    }
  }

  private static readonly logger = new Logger('PushNotifications');
}

/** What a caller learns of a webhook refused for what its host resolves to (or does not): that it is refused. */
export const WEBHOOK_REFUSED = 'is refused: this server does not send notifications to that host';
