/**
 * A client of one remote agent: resolves its Agent Card, picks the interface (§8.3), and offers
 * every A2A operation over JSON-RPC or HTTP+JSON with the service parameters of every request
 * (`A2A-Version`, `A2A-Extensions`, the interface's tenant), typed errors from both bindings,
 * deadlines, retries where they are safe, a circuit breaker per origin, and the egress policy on
 * every URL it is handed.
 *
 * This file is the facade: its options checked, its parts put together. The card and the
 * interface (with the fallback to A2A 0.3) are `endpoint-selector.ts`'s; how a call is made,
 * validated, sent, retried and decoded is `client-calls.ts`'s.
 */
import { redactUrl } from '../net/redact-url.js';
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '../protocol/types.js';
import { A2AEventStream } from './a2a-event-stream.js';
import { A2AHttp, httpOptionProblems } from './a2a-http.js';
import { AgentCardResolver, agentCardUrl, readAgentCard } from './card-resolver.js';
import { ClientCalls } from './client-calls.js';
import { InvalidClientOptionsError } from './client-errors.js';
import type { A2ACallOptions, A2AClientOptions, A2AStreamOptions, A2ASubscribeOptions } from './client-options.js';
import { CredentialScope, credentialOriginsOf } from './credential-scope.js';
import { EndpointSelector } from './endpoint-selector.js';
import { CLIENT_BINDINGS, type SelectedInterface } from './interface-selection.js';

export type { A2ACallOptions, A2AClientOptions, A2AStreamOptions, A2ASubscribeOptions } from './client-options.js';

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

function checkTimeout(name: string, value: number | undefined, problems: string[]): void {
  if (value !== undefined && !(Number.isFinite(value) && value > 0)) problems.push(`${name} must be a positive number of milliseconds (got ${String(value)})`);
}

/**
 * A client of one remote A2A agent.
 *
 * It talks A2A 1.0 wherever the card offers it, and 0.3 to an agent that has not moved yet: one
 * whose card offers only 0.3 interfaces, or one that answers a 1.0 call as a 0.3 agent does
 * (method not found, an unknown route, VersionNotSupported), after which the call is sent again
 * at 0.3 and the client keeps talking 0.3 to that card. Either way the caller sees 1.0 types.
 * @publicApi
 */
export class A2AClient {
  private readonly http: A2AHttp;
  private readonly resolver: AgentCardResolver | undefined;
  private readonly ownsResolver: boolean;
  private readonly endpoints: EndpointSelector;
  private readonly calls: ClientCalls;

  /** @throws InvalidClientOptionsError listing every problem of `options` */
  constructor(options: A2AClientOptions) {
    const problems = httpOptionProblems(options);
    if ((options.cardUrl === undefined) === (options.card === undefined)) problems.push('give exactly one of cardUrl and card');
    checkTimeout('timeoutMs', options.timeoutMs, problems);
    checkTimeout('streamIdleTimeoutMs', options.streamIdleTimeoutMs, problems);
    if (options.preferredBinding !== undefined && !CLIENT_BINDINGS.includes(options.preferredBinding)) {
      problems.push(`preferredBinding must be one of ${CLIENT_BINDINGS.join(', ')} (got ${String(options.preferredBinding)})`);
    }
    if (options.verify !== undefined && options.verify.keys === undefined && options.verify.jwksUrl === undefined) problems.push('verify needs keys or a jwksUrl');
    const credentialOrigins = credentialOriginsOf(options.credentialOrigins, 'credentialOrigins', problems);
    // null: a card given in hand; '' (no origin): a card URL that cannot be read, refused when it is used
    let configuredOrigin: string | null = null;
    if (options.cardUrl !== undefined) {
      try {
        configuredOrigin = new URL(agentCardUrl(options.cardUrl)).origin;
      } catch {
        configuredOrigin = '';
      }
    }
    let fixedCard: AgentCard | undefined;
    if (options.card !== undefined) {
      try {
        fixedCard = readAgentCard(JSON.parse(JSON.stringify(options.card)), 'card').card;
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
    if (problems.length > 0) throw new InvalidClientOptionsError(problems);
    this.http = new A2AHttp(options);
    const cardUrl = options.cardUrl === undefined ? undefined : String(options.cardUrl);
    const cardTarget = cardUrl === undefined ? '(Agent Card)' : redactUrl(cardUrl);
    this.ownsResolver = options.cardResolver === undefined;
    // a fixed card without verification needs no resolver at all
    this.resolver =
      options.cardResolver ??
      (cardUrl !== undefined || options.verify !== undefined
        ? new AgentCardResolver({ ...options.cardCache, ...(options.discoveryHeaders === undefined ? {} : { headers: options.discoveryHeaders }) }, this.http)
        : undefined);
    this.endpoints = new EndpointSelector({
      http: this.http,
      resolver: this.resolver,
      cardUrl,
      cardTarget,
      fixedCard,
      givenCard: options.card,
      verify: options.verify,
      preferredBinding: options.preferredBinding,
    });
    this.calls = new ClientCalls({
      http: this.http,
      endpoints: this.endpoints,
      credentialScope: new CredentialScope(configuredOrigin, credentialOrigins),
      peer: configuredOrigin || originOf(fixedCard?.supportedInterfaces[0]?.url),
      cardTarget,
      headers: options.headers,
      tenant: options.tenant,
      extensions: options.extensions ?? [],
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      idleTimeoutMs: options.streamIdleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    });
  }

  /** The agent's (public) card, from the cache while it is fresh. */
  async getAgentCard(options: { signal?: AbortSignal } = {}): Promise<AgentCard> {
    return (await this.calls.withControl(options, (control) => this.endpoints.verifiedCard(control.signal))).card;
  }

  /** The interface calls go to, chosen from the card (spec §8.3). */
  async getInterface(options: { signal?: AbortSignal } = {}): Promise<SelectedInterface> {
    return (await this.calls.withControl(options, (control) => this.endpoints.endpoint(control.signal))).selected;
  }

  /** SendMessage: a Task (`{ task }`) or a direct Message (`{ message }`). Retried only with the same request, hence the same messageId. */
  async sendMessage(request: SendMessageRequest, options?: A2ACallOptions): Promise<SendMessageResponse> {
    return (await this.calls.unary('SendMessage', request, options)) as SendMessageResponse;
  }

  /** SendStreamingMessage: the task's events (or one message) until the server closes the stream. Never retried. */
  sendStreamingMessage(request: SendMessageRequest, options?: A2AStreamOptions): A2AEventStream {
    return new A2AEventStream((sink) => this.calls.stream('SendStreamingMessage', request, options ?? {}, sink));
  }

  async getTask(request: GetTaskRequest, options?: A2ACallOptions): Promise<Task> {
    return (await this.calls.unary('GetTask', request, options)) as Task;
  }

  async listTasks(request: ListTasksRequest = {}, options?: A2ACallOptions): Promise<ListTasksResponse> {
    return (await this.calls.unary('ListTasks', request, options)) as ListTasksResponse;
  }

  async cancelTask(request: CancelTaskRequest, options?: A2ACallOptions): Promise<Task> {
    return (await this.calls.unary('CancelTask', request, options)) as Task;
  }

  /** SubscribeToTask: the Task snapshot first (unless resuming with `lastEventId`), then its events. */
  subscribeToTask(request: SubscribeToTaskRequest, options?: A2ASubscribeOptions): A2AEventStream {
    return new A2AEventStream((sink) => this.calls.stream('SubscribeToTask', request, options ?? {}, sink));
  }

  async createTaskPushNotificationConfig(config: TaskPushNotificationConfig, options?: A2ACallOptions): Promise<TaskPushNotificationConfig> {
    return (await this.calls.unary('CreateTaskPushNotificationConfig', config, options)) as TaskPushNotificationConfig;
  }

  async getTaskPushNotificationConfig(request: GetTaskPushNotificationConfigRequest, options?: A2ACallOptions): Promise<TaskPushNotificationConfig> {
    return (await this.calls.unary('GetTaskPushNotificationConfig', request, options)) as TaskPushNotificationConfig;
  }

  async listTaskPushNotificationConfigs(request: ListTaskPushNotificationConfigsRequest, options?: A2ACallOptions): Promise<ListTaskPushNotificationConfigsResponse> {
    return (await this.calls.unary('ListTaskPushNotificationConfigs', request, options)) as ListTaskPushNotificationConfigsResponse;
  }

  async deleteTaskPushNotificationConfig(request: DeleteTaskPushNotificationConfigRequest, options?: A2ACallOptions): Promise<void> {
    await this.calls.unary('DeleteTaskPushNotificationConfig', request, options);
  }

  /** GetExtendedAgentCard: the card for the authenticated caller (needs `capabilities.extendedAgentCard`). */
  async getExtendedAgentCard(request: GetExtendedAgentCardRequest = {}, options?: A2ACallOptions): Promise<AgentCard> {
    return (await this.calls.unary('GetExtendedAgentCard', request, options)) as AgentCard;
  }

  /** Closes the connections this client opened (a dispatcher or resolver it was given stays open). */
  async close(): Promise<void> {
    if (this.ownsResolver) await this.resolver?.close();
    await this.http.close();
  }
}

/** The origin of `url`, or `(unknown)` when it has none. */
function originOf(url: string | undefined): string {
  try {
    return new URL(url ?? '').origin;
  } catch {
    return '(unknown)';
  }
}
