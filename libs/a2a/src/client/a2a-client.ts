/**
 * A client of one remote agent: resolves its Agent Card, picks the interface (§8.3), and offers
 * every A2A operation over JSON-RPC or HTTP+JSON with the service parameters of every request
 * (`A2A-Version`, `A2A-Extensions`, the interface's tenant), typed errors from both bindings,
 * deadlines, retries where they are safe, a circuit breaker per origin, and the egress policy on
 * every URL it is handed.
 *
 * Requests are validated and encoded with the protocol schemas before anything is sent (a bad
 * request fails with InvalidParamsError, as the server would answer), and results are decoded
 * with them (an answer that is not A2A 1.0 fails with InvalidAgentResponseError). To an agent
 * that speaks only A2A 0.3 the same calls go in 0.3's terms (`v03-*-transport.ts`), its answers
 * read as strictly and mapped back to 1.0 types.
 */
import { redactUrl } from '../net/redact-url.js';
import { decode, encode, type Schema } from '../protocol/codec.js';
import { InvalidAgentResponseError, InvalidParamsError, MethodNotAllowedError, MethodNotFoundError, VersionNotSupportedError } from '../protocol/errors.js';
import { isPlainObject } from '../protocol/json-value.js';
import { OPERATIONS } from '../protocol/operations.js';
import { StreamResponseSchema } from '../protocol/schemas.js';
import { EXTENSIONS_HEADER, VERSION_HEADER, parseExtensionsHeader } from '../protocol/service-params.js';
import { isV03Version, V03_PROTOCOL_VERSION } from '../protocol/v03/constants.js';
import {
  PROTOCOL_VERSION,
  type AgentCard,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetExtendedAgentCardRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushNotificationConfig,
} from '../protocol/types.js';
import { A2AEventStream } from './a2a-event-stream.js';
import { A2AHttp, httpOptionProblems, normaliseHeaders, type A2AHttpOptions } from './a2a-http.js';
import { CallControl } from './call-control.js';
import { AgentCardResolver, agentCardUrl, readAgentCard, type AgentCardResolverOptions, type CardVerification } from './card-resolver.js';
import { InvalidClientOptionsError } from './client-errors.js';
import { CredentialScope, credentialOriginsOf, type CredentialScopeOptions } from './credential-scope.js';
import { resolveHeaders, type A2AHeaderValues, type A2AHeadersOption } from './headers.js';
import { errorFacts } from './error-mapping.js';
import { CLIENT_BINDINGS, selectInterface, v03FallbackInterface, type A2ABinding, type SelectedInterface } from './interface-selection.js';
import { JsonRpcTransport } from './json-rpc-transport.js';
import { runResilient } from './resilience.js';
import { injectTraceContext } from '../telemetry/telemetry-api.js';
import { annotateClientCall, observeClientCall, startClientCall } from '../telemetry/client-telemetry.js';
import { isUnknownRoute, RestTransport } from './rest-transport.js';
import { readSse } from './sse-reader.js';
import type { A2ATransport, OpenedStream, StreamingOperation, TransportCall, UnaryOperation } from './transport.js';
import { V03JsonRpcTransport } from './v03-json-rpc-transport.js';
import { V03RestTransport } from './v03-rest-transport.js';

/** @publicApi */
export interface A2AClientOptions extends A2AHttpOptions, CredentialScopeOptions {
  /**
   * Where the agent's card is: its origin (`https://agent.example.com`), an agent's base URL (the
   * well-known path is appended) or the card's own URL (ending in `.json`). Give this or `card`.
   */
  cardUrl?: string | URL;
  /** A card already in hand (from a registry, a file …): no discovery. Give this or `cardUrl`. */
  card?: AgentCard;
  /** Use this binding when the card offers it, even if it lists another one first. */
  preferredBinding?: A2ABinding;
  /** Tenant for every request, instead of the selected interface's. */
  tenant?: string;
  /** Extension URIs to activate on every request (`A2A-Extensions`). */
  extensions?: readonly string[];
  /**
   * Headers for every request, or a function asked at every attempt (credentials resolved at call
   * time). They go to the card URL's origin only; to an interface the card names at another origin
   * only when the card's signature verified against your keys (`verify`) or that origin is in
   * `credentialOrigins`. Otherwise the call fails with `CredentialsWithheldError` before anything
   * is sent. A card given in hand (`card`) is your configuration: its origins are trusted.
   * Discovery (the card, the JWKS) never gets them: see `discoveryHeaders`.
   */
  headers?: A2AHeadersOption;
  /**
   * Headers for discovery requests (the Agent Card and the JWKS), for a card behind auth. None by
   * default: the card is public (spec §8.2), and a credential sent to fetch it is one more place
   * it can leak.
   */
  discoveryHeaders?: A2AHeadersOption;
  /**
   * Budget of one call, retries and card resolution included, in milliseconds; for a stream, the
   * budget until it opens. Default 60000 (SendMessage blocks until the task settles: raise it, or
   * use `returnImmediately` or streaming, for long tasks).
   */
  timeoutMs?: number;
  /**
   * Longest silence of an open stream (no event, no heartbeat comment), in milliseconds.
   * Default 60000 (servers send a heartbeat every 15 s or so).
   */
  streamIdleTimeoutMs?: number;
  /** Verify the card's signatures (spec §8.4.3); an unverified card is refused. */
  verify?: CardVerification;
  /** A resolver to share (its cache and network settings); by default the client has its own. */
  cardResolver?: AgentCardResolver;
  /** Cache settings of the client's own resolver. */
  cardCache?: Pick<AgentCardResolverOptions, 'timeoutMs' | 'defaultTtlMs' | 'maxTtlMs' | 'now'>;
}

/** Per-call settings. @publicApi */
export interface A2ACallOptions {
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Extra headers for this call (after the client's). */
  headers?: A2AHeaderValues;
  /** Extension URIs to activate on this call, besides the client's. */
  extensions?: readonly string[];
  /** Tenant for this call (wins over the request's own `tenant`, the client's and the interface's). */
  tenant?: string;
}

/** Per-stream settings: `timeoutMs` is the budget until the stream opens. @publicApi */
export interface A2AStreamOptions extends A2ACallOptions {
  /** Overrides the client's `streamIdleTimeoutMs`. */
  idleTimeoutMs?: number;
}

/** @publicApi */
export interface A2ASubscribeOptions extends A2AStreamOptions {
  /** Resume after this SSE event id (`Last-Event-ID`): no snapshot, exactly the events after it. */
  lastEventId?: string;
}

interface Endpoint {
  readonly card: AgentCard;
  /** The card's signature verified against the caller's keys (`verify`). */
  readonly verified: boolean;
  readonly selected: SelectedInterface;
  readonly transport: A2ATransport;
}

type PreparedCall<Op> = Pick<TransportCall, 'params' | 'tenant'> & { operation: Op };

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

/** Operations that are safe to repeat (spec §3.3.1): reads, Cancel (idempotent), Delete (MUST be idempotent), and opening a subscription. */
const IDEMPOTENT = new Set<string>([
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
]);

/** The transport of an interface: its binding, at its version. */
function transportFor(http: A2AHttp, selected: SelectedInterface): A2ATransport {
  const v03 = selected.protocolVersion === V03_PROTOCOL_VERSION;
  if (selected.binding === 'JSONRPC') return v03 ? new V03JsonRpcTransport(http, selected.url) : new JsonRpcTransport(http, selected.url);
  return v03 ? new V03RestTransport(http, selected.url) : new RestTransport(http, selected.url);
}

/**
 * Is `error` how a 0.3 agent answers a 1.0 call: an unknown method (JSON-RPC) or route (REST), or
 * VersionNotSupported that does not rule 0.3 out?
 */
function answersAsV03Agent(error: unknown): boolean {
  if (error instanceof VersionNotSupportedError) {
    const supported = error.metadata.supportedVersions;
    return supported === undefined || supported.split(',').some(isV03Version);
  }
  return error instanceof MethodNotFoundError || error instanceof MethodNotAllowedError || isUnknownRoute(error);
}

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
  private readonly cardUrl: string | undefined;
  /** The peer's origin as configured, for metrics until an interface is chosen. */
  private readonly peer: string;
  private readonly fixedCard: AgentCard | undefined;
  private readonly timeoutMs: number;
  private readonly idleTimeoutMs: number;
  private readonly extensions: readonly string[];
  private readonly credentialScope: CredentialScope;
  private endpointCache: Endpoint | undefined;
  private fixedCardChecked: Promise<void> | undefined;

  /** @throws InvalidClientOptionsError listing every problem of `options` */
  constructor(private readonly options: A2AClientOptions) {
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
    this.fixedCard = fixedCard;
    this.cardUrl = options.cardUrl === undefined ? undefined : String(options.cardUrl);
    this.peer = configuredOrigin || originOf(fixedCard?.supportedInterfaces[0]?.url);
    this.ownsResolver = options.cardResolver === undefined;
    // a fixed card without verification needs no resolver at all
    this.resolver =
      options.cardResolver ??
      (this.cardUrl !== undefined || options.verify !== undefined
        ? new AgentCardResolver({ ...options.cardCache, ...(options.discoveryHeaders === undefined ? {} : { headers: options.discoveryHeaders }) }, this.http)
        : undefined);
    this.credentialScope = new CredentialScope(configuredOrigin, credentialOrigins);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.idleTimeoutMs = options.streamIdleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.extensions = options.extensions ?? [];
  }

  /** The agent's (public) card, from the cache while it is fresh. */
  async getAgentCard(options: { signal?: AbortSignal } = {}): Promise<AgentCard> {
    return this.withControl(options, (control) => this.card(control));
  }

  /** The interface calls go to, chosen from the card (spec §8.3). */
  async getInterface(options: { signal?: AbortSignal } = {}): Promise<SelectedInterface> {
    return (await this.withControl(options, (control) => this.endpoint(control))).selected;
  }

  /** SendMessage: a Task (`{ task }`) or a direct Message (`{ message }`). Retried only with the same request, hence the same messageId. */
  async sendMessage(request: SendMessageRequest, options?: A2ACallOptions): Promise<SendMessageResponse> {
    return (await this.unary('SendMessage', request, options)) as SendMessageResponse;
  }

  /** SendStreamingMessage: the task's events (or one message) until the server closes the stream. Never retried. */
  sendStreamingMessage(request: SendMessageRequest, options?: A2AStreamOptions): A2AEventStream {
    return new A2AEventStream((sink) => this.streamEvents('SendStreamingMessage', request, options ?? {}, sink));
  }

  async getTask(request: GetTaskRequest, options?: A2ACallOptions): Promise<Task> {
    return (await this.unary('GetTask', request, options)) as Task;
  }

  async listTasks(request: ListTasksRequest = {}, options?: A2ACallOptions): Promise<ListTasksResponse> {
    return (await this.unary('ListTasks', request, options)) as ListTasksResponse;
  }

  async cancelTask(request: CancelTaskRequest, options?: A2ACallOptions): Promise<Task> {
    return (await this.unary('CancelTask', request, options)) as Task;
  }

  /** SubscribeToTask: the Task snapshot first (unless resuming with `lastEventId`), then its events. */
  subscribeToTask(request: SubscribeToTaskRequest, options?: A2ASubscribeOptions): A2AEventStream {
    return new A2AEventStream((sink) => this.streamEvents('SubscribeToTask', request, options ?? {}, sink));
  }

  async createTaskPushNotificationConfig(config: TaskPushNotificationConfig, options?: A2ACallOptions): Promise<TaskPushNotificationConfig> {
    return (await this.unary('CreateTaskPushNotificationConfig', config, options)) as TaskPushNotificationConfig;
  }

  async getTaskPushNotificationConfig(request: GetTaskPushNotificationConfigRequest, options?: A2ACallOptions): Promise<TaskPushNotificationConfig> {
    return (await this.unary('GetTaskPushNotificationConfig', request, options)) as TaskPushNotificationConfig;
  }

  async listTaskPushNotificationConfigs(request: ListTaskPushNotificationConfigsRequest, options?: A2ACallOptions): Promise<ListTaskPushNotificationConfigsResponse> {
    return (await this.unary('ListTaskPushNotificationConfigs', request, options)) as ListTaskPushNotificationConfigsResponse;
  }

  async deleteTaskPushNotificationConfig(request: DeleteTaskPushNotificationConfigRequest, options?: A2ACallOptions): Promise<void> {
    await this.unary('DeleteTaskPushNotificationConfig', request, options);
  }

  /** GetExtendedAgentCard: the card for the authenticated caller (needs `capabilities.extendedAgentCard`). */
  async getExtendedAgentCard(request: GetExtendedAgentCardRequest = {}, options?: A2ACallOptions): Promise<AgentCard> {
    return (await this.unary('GetExtendedAgentCard', request, options)) as AgentCard;
  }

  /** Closes the connections this client opened (a dispatcher or resolver it was given stays open). */
  async close(): Promise<void> {
    if (this.ownsResolver) await this.resolver?.close();
    await this.http.close();
  }

  // ---- internals ----

  private get cardTarget(): string {
    return this.cardUrl === undefined ? '(Agent Card)' : redactUrl(this.cardUrl);
  }

  private async withControl<T>(options: { signal?: AbortSignal; timeoutMs?: number }, run: (control: CallControl) => Promise<T>): Promise<T> {
    const control = new CallControl(options.signal);
    control.target = this.cardTarget;
    control.startDeadline(options.timeoutMs ?? this.timeoutMs);
    try {
      return await run(control);
    } catch (error) {
      throw control.failure(error);
    } finally {
      control.dispose();
    }
  }

  /** The card: the fixed one (verified once, if asked), or resolved through the cache (cheap while fresh). */
  private async card(control: CallControl): Promise<AgentCard> {
    return (await this.verifiedCard(control)).card;
  }

  /** The card, and whether its signature verified against the caller's keys. */
  private async verifiedCard(control: CallControl): Promise<{ card: AgentCard; verified: boolean }> {
    if (this.fixedCard === undefined) {
      const verify = this.options.verify === undefined ? {} : { verify: this.options.verify };
      const resolved = await this.resolver!.resolve(this.cardUrl!, { signal: control.signal, ...verify });
      return { card: resolved.card, verified: resolved.signature !== undefined };
    }
    if (this.options.verify !== undefined) {
      this.fixedCardChecked ??= this.resolver!.verifyCard(this.options.card, this.options.verify).then(() => undefined);
      try {
        await this.fixedCardChecked;
      } catch (error) {
        this.fixedCardChecked = undefined;
        throw error;
      }
    }
    return { card: this.fixedCard, verified: this.options.verify !== undefined };
  }

  /** The card and the interface to use, re-selected only when the card changed. */
  private async endpoint(control: CallControl): Promise<Endpoint> {
    const { card, verified } = await this.verifiedCard(control);
    const cached = this.endpointCache;
    if (cached !== undefined && cached.card === card && cached.verified === verified) return cached;
    const selected = selectInterface(card, {
      policy: this.http.policy,
      cardUrl: this.cardUrl === undefined ? undefined : this.cardTarget,
      ...(this.options.preferredBinding === undefined ? {} : { preferredBinding: this.options.preferredBinding }),
    });
    this.endpointCache = { card, verified, selected, transport: transportFor(this.http, selected) };
    return this.endpointCache;
  }

  /** Where to talk 0.3 when `error` says the 1.0 call at `endpoint` reached a 0.3 agent. */
  private v03Fallback(endpoint: Endpoint, operation: string, error: unknown): Endpoint | undefined {
    // ListTasks has no 0.3 form: the 1.0 answer stands
    if (endpoint.selected.protocolVersion !== PROTOCOL_VERSION || operation === 'ListTasks' || !answersAsV03Agent(error)) return undefined;
    let selected: SelectedInterface;
    try {
      selected = v03FallbackInterface(endpoint.card, endpoint.selected, this.http.policy);
    } catch {
      return undefined;
    }
    // the same card, so the same credential scope: its signature verified or not, its origins allowed or not
    return { card: endpoint.card, verified: endpoint.verified, selected, transport: transportFor(this.http, selected) };
  }

  /**
   * Runs a call again at 0.3. When the peer refuses 0.3 as well, the 1.0 error stands; when it
   * answers (a result, or an A2A error), it speaks 0.3, and the client keeps talking 0.3 to it.
   */
  private async atV03<T>(fallback: Endpoint, original: unknown, run: () => Promise<T>): Promise<T> {
    try {
      const result = await run();
      this.keep(fallback);
      return result;
    } catch (error) {
      if (answersAsV03Agent(error)) throw original;
      // an error raised before anything was sent proves nothing about the peer
      if (errorFacts(error) !== undefined) this.keep(fallback);
      throw error;
    }
  }

  private keep(fallback: Endpoint): void {
    if (this.endpointCache?.card === fallback.card && this.endpointCache.verified === fallback.verified) this.endpointCache = fallback;
  }

  /**
   * Validates and encodes a request with its schema, and settles its tenant.
   * @throws InvalidParamsError (nothing is sent)
   */
  private prepare<Op extends keyof typeof OPERATIONS>(operation: Op, request: unknown, options: A2ACallOptions, endpoint: Endpoint): PreparedCall<Op> {
    // as JSON: `undefined` members vanish (the codec would refuse them as "not a string")
    const json: unknown = request === undefined ? {} : JSON.parse(JSON.stringify(request));
    if (!isPlainObject(json)) throw InvalidParamsError.field('(request)', 'must be an object');
    const schema = OPERATIONS[operation].request;
    const params = encode(schema, decode(schema, json)) as Record<string, unknown>;
    const requested = typeof json.tenant === 'string' && json.tenant !== '' ? json.tenant : undefined;
    const tenant = options.tenant ?? requested ?? this.options.tenant ?? endpoint.selected.interface.tenant;
    delete params.tenant;
    return { operation, params, tenant: tenant === '' ? undefined : tenant };
  }

  /**
   * Every request's headers: the caller's (where the credential scope lets them go), then the
   * service parameters, which cannot be overridden.
   * @throws CredentialsWithheldError when the caller has headers for an origin they may not go to
   */
  private async headersFor(call: PreparedCall<string>, endpoint: Endpoint, options: A2ACallOptions, attempt: number): Promise<Record<string, string>> {
    const url = endpoint.transport.urlFor(call as PreparedCall<UnaryOperation>);
    const headers = {
      ...(await resolveHeaders(this.options.headers, { operation: call.operation as UnaryOperation, url: url.href, interface: endpoint.selected.interface, attempt })),
      ...normaliseHeaders(options.headers),
    };
    this.credentialScope.check(url, endpoint.verified, headers);
    const extensionsKey = EXTENSIONS_HEADER.toLowerCase();
    const extensions = parseExtensionsHeader([...this.extensions, ...(options.extensions ?? []), ...(headers[extensionsKey] === undefined ? [] : [headers[extensionsKey]])]);
    delete headers[extensionsKey];
    if (extensions.length > 0) headers[extensionsKey] = extensions.join(', ');
    headers[VERSION_HEADER.toLowerCase()] = PROTOCOL_VERSION;
    injectTraceContext(headers); // the call's span: the peer's work joins this trace
    return headers;
  }

  private retryable(operation: string): boolean {
    return IDEMPOTENT.has(operation) || (operation === 'SendMessage' && this.http.retry?.sendMessage === true);
  }

  private unary(operation: UnaryOperation, request: unknown, options: A2ACallOptions = {}): Promise<unknown> {
    return observeClientCall(operation, this.peer, () => this.unaryCall(operation, request, options));
  }

  private unaryCall(operation: UnaryOperation, request: unknown, options: A2ACallOptions): Promise<unknown> {
    return this.withControl(options, async (control) => {
      const endpoint = await this.endpoint(control);
      try {
        return await this.unaryAt(endpoint, operation, request, options, control);
      } catch (error) {
        const fallback = this.v03Fallback(endpoint, operation, error);
        if (fallback === undefined) throw error;
        return this.atV03(fallback, error, () => this.unaryAt(fallback, operation, request, options, control));
      }
    });
  }

  private async unaryAt(endpoint: Endpoint, operation: UnaryOperation, request: unknown, options: A2ACallOptions, control: CallControl): Promise<unknown> {
    control.target = redactUrl(endpoint.selected.url);
    annotateClientCall(endpoint.selected.url, endpoint.selected.binding, endpoint.selected.protocolVersion);
    const call = this.prepare(operation, request, options, endpoint);
    let attempt = 0;
    const raw = await runResilient({
      origin: endpoint.selected.url.origin,
      retryable: this.retryable(operation),
      control,
      breakers: this.http.breakers,
      retry: this.http.retry,
      attempt: async () => endpoint.transport.unary({ ...call, headers: await this.headersFor(call, endpoint, options, ++attempt), control }),
    });
    // Empty: whatever a successful Delete carried (`{}`, `null`, nothing) means the same
    if (operation === 'DeleteTaskPushNotificationConfig') return undefined;
    return this.decodeAnswer(OPERATIONS[operation].response, raw, `the ${operation} result`, control.target, endpoint);
  }

  private decodeAnswer(schema: Schema, raw: unknown, what: string, target: string, endpoint: Endpoint): unknown {
    try {
      return decode(schema, raw);
    } catch (error) {
      if (!(error instanceof InvalidParamsError)) throw error;
      throw new InvalidAgentResponseError(`${target}: ${what} is not valid A2A ${endpoint.selected.protocolVersion} (${error.violationsText(10)})`);
    }
  }

  /** Opens a stream at `endpoint` (before events flow, only a subscription is safe to open again). */
  private openAt(endpoint: Endpoint, operation: StreamingOperation, request: unknown, options: A2ASubscribeOptions, control: CallControl): Promise<OpenedStream> {
    control.target = redactUrl(endpoint.selected.url);
    annotateClientCall(endpoint.selected.url, endpoint.selected.binding, endpoint.selected.protocolVersion);
    const call = this.prepare(operation, request, options, endpoint);
    let attempt = 0;
    return runResilient({
      origin: endpoint.selected.url.origin,
      retryable: operation === 'SubscribeToTask',
      control,
      breakers: this.http.breakers,
      retry: this.http.retry,
      attempt: async () =>
        endpoint.transport.openStream({
          ...call,
          headers: await this.headersFor(call, endpoint, options, ++attempt),
          control,
          ...(options.lastEventId === undefined ? {} : { lastEventId: options.lastEventId }),
        }),
    });
  }

  private async *streamEvents(
    operation: StreamingOperation,
    request: unknown,
    options: A2ASubscribeOptions,
    sink: { setLastEventId(id: string): void },
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const control = new CallControl(options.signal);
    control.target = this.cardTarget;
    control.startDeadline(options.timeoutMs ?? this.timeoutMs);
    let opened: OpenedStream | undefined;
    let completed = false;
    let endedByPeer = false;
    const observed = startClientCall(operation, this.peer);
    const inCall = <T>(open: () => Promise<T>): Promise<T> => (observed ? observed.run(open) : open());
    let failure: unknown;
    try {
      let endpoint = await this.endpoint(control);
      try {
        opened = await inCall(() => this.openAt(endpoint, operation, request, options, control));
      } catch (error) {
        const fallback = this.v03Fallback(endpoint, operation, error);
        if (fallback === undefined) throw error;
        opened = await inCall(() => this.atV03(fallback, error, () => this.openAt(fallback, operation, request, options, control)));
        endpoint = fallback;
      }
      // the stream is open: from now on silence, not duration, is what ends it
      control.clearDeadline();
      control.touchIdle(options.idleTimeoutMs ?? this.idleTimeoutMs);
      const { facts } = opened;
      const messages = readSse(opened.body, { maxEventChars: this.http.maxResponseBytes, onActivity: () => control.touchIdle(), target: facts.target });
      for await (const message of messages) {
        const event = this.decodeAnswer(StreamResponseSchema, endpoint.transport.eventPayload(message, facts), 'a stream event', facts.target, endpoint) as StreamResponse;
        if (message.id !== undefined && message.id !== '') sink.setLastEventId(message.id);
        control.pauseIdle();
        yield event;
        control.touchIdle();
        // 0.3: `final` says nothing follows, whether or not the peer closes the stream
        endedByPeer = endpoint.transport.endsStream?.(message) === true;
        if (endedByPeer) break;
      }
      completed = true;
    } catch (error) {
      failure = control.failure(error);
      throw failure;
    } finally {
      observed?.end(failure);
      control.dispose();
      if (!completed || endedByPeer) opened?.body.destroy();
    }
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
