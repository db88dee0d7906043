/**
 * How an `A2AClient` call is made: the request validated and encoded with its schema (a bad one
 * fails with InvalidParamsError, as the server would answer, before anything is sent), its headers
 * (the caller's within the credential scope, then the service parameters and the trace context),
 * deadlines, retries where they are safe and the breaker per origin, the answer or each stream
 * event decoded as strictly (InvalidAgentResponseError otherwise), the 0.3 fallback, and one
 * client span per call.
 */
import { redactUrl } from '../net/redact-url.js';
import { decode, encode, type Schema } from '../protocol/codec.js';
import { InvalidAgentResponseError, InvalidParamsError } from '../protocol/errors.js';
import { isPlainObject } from '../protocol/json-value.js';
import { OPERATIONS } from '../protocol/operations.js';
import { StreamResponseSchema } from '../protocol/schemas.js';
import { EXTENSIONS_HEADER, VERSION_HEADER, parseExtensionsHeader } from '../protocol/service-params.js';
import { PROTOCOL_VERSION, type StreamResponse } from '../protocol/types.js';
import { annotateClientCall, observeClientCall, startClientCall } from '../telemetry/client-telemetry.js';
import { injectTraceContext } from '../telemetry/telemetry-api.js';
import { normaliseHeaders, type A2AHttp } from './a2a-http.js';
import { CallControl } from './call-control.js';
import type { A2ACallOptions, A2ASubscribeOptions } from './client-options.js';
import type { CredentialScope } from './credential-scope.js';
import type { Endpoint, EndpointSelector } from './endpoint-selector.js';
import { resolveHeaders, type A2AHeadersOption } from './headers.js';
import { runResilient } from './resilience.js';
import { readSse } from './sse-reader.js';
import type { OpenedStream, StreamingOperation, TransportCall, UnaryOperation } from './transport.js';

type PreparedCall<Op> = Pick<TransportCall, 'params' | 'tenant'> & { operation: Op };

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

export interface ClientCallSettings {
  readonly http: A2AHttp;
  readonly endpoints: EndpointSelector;
  readonly credentialScope: CredentialScope;
  /** The peer's origin as configured, for metrics until an interface is chosen. */
  readonly peer: string;
  /** The card URL as errors may show it, until an interface is chosen. */
  readonly cardTarget: string;
  readonly headers: A2AHeadersOption | undefined;
  readonly tenant: string | undefined;
  readonly extensions: readonly string[];
  readonly timeoutMs: number;
  readonly idleTimeoutMs: number;
}

/** The unary and streaming calls of one client. @internal */
export class ClientCalls {
  constructor(private readonly settings: ClientCallSettings) {}

  /** Runs `run` under a deadline and the caller's signal; its failure is the call's, as the caller should see it. */
  async withControl<T>(options: { signal?: AbortSignal; timeoutMs?: number }, run: (control: CallControl) => Promise<T>): Promise<T> {
    const control = this.control(options);
    try {
      return await run(control);
    } catch (error) {
      throw control.failure(error);
    } finally {
      control.dispose();
    }
  }

  /** One request, one answer: retried where safe, sent again at 0.3 to an agent that speaks only 0.3. */
  unary(operation: UnaryOperation, request: unknown, options: A2ACallOptions = {}): Promise<unknown> {
    return observeClientCall(operation, this.settings.peer, () =>
      this.withControl(options, async (control) => {
        const endpoint = await this.settings.endpoints.endpoint(control.signal);
        try {
          return await this.unaryAt(endpoint, operation, request, options, control);
        } catch (error) {
          const fallback = this.settings.endpoints.v03Fallback(endpoint, operation, error);
          if (fallback === undefined) throw error;
          return this.settings.endpoints.atV03(fallback, error, () => this.unaryAt(fallback, operation, request, options, control));
        }
      }),
    );
  }

  /** A stream's events, decoded, until the peer ends it; `sink` hears each event id (for resuming). */
  async *stream(
    operation: StreamingOperation,
    request: unknown,
    options: A2ASubscribeOptions,
    sink: { setLastEventId(id: string): void },
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const control = this.control(options);
    let opened: OpenedStream | undefined;
    let completed = false;
    let endedByPeer = false;
    const observed = startClientCall(operation, this.settings.peer);
    const inCall = <T>(open: () => Promise<T>): Promise<T> => (observed ? observed.run(open) : open());
    let failure: unknown;
    try {
      const endpoints = this.settings.endpoints;
      let endpoint = await endpoints.endpoint(control.signal);
      try {
        opened = await inCall(() => this.openAt(endpoint, operation, request, options, control));
      } catch (error) {
        const fallback = endpoints.v03Fallback(endpoint, operation, error);
        if (fallback === undefined) throw error;
        opened = await inCall(() => endpoints.atV03(fallback, error, () => this.openAt(fallback, operation, request, options, control)));
        endpoint = fallback;
      }
      // the stream is open: from now on silence, not duration, is what ends it
      control.clearDeadline();
      control.touchIdle(options.idleTimeoutMs ?? this.settings.idleTimeoutMs);
      const { facts } = opened;
      const messages = readSse(opened.body, { maxEventChars: this.settings.http.maxResponseBytes, onActivity: () => control.touchIdle(), target: facts.target });
      for await (const message of messages) {
        const event = decodeAnswer(StreamResponseSchema, endpoint.transport.eventPayload(message, facts), 'a stream event', facts.target, endpoint) as StreamResponse;
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

  private control(options: { signal?: AbortSignal; timeoutMs?: number }): CallControl {
    const control = new CallControl(options.signal);
    control.target = this.settings.cardTarget;
    control.startDeadline(options.timeoutMs ?? this.settings.timeoutMs);
    return control;
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
      breakers: this.settings.http.breakers,
      retry: this.settings.http.retry,
      attempt: async () => endpoint.transport.unary({ ...call, headers: await this.headersFor(call, endpoint, options, ++attempt), control }),
    });
    // Empty: whatever a successful Delete carried (`{}`, `null`, nothing) means the same
    if (operation === 'DeleteTaskPushNotificationConfig') return undefined;
    return decodeAnswer(OPERATIONS[operation].response, raw, `the ${operation} result`, control.target, endpoint);
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
      breakers: this.settings.http.breakers,
      retry: this.settings.http.retry,
      attempt: async () =>
        endpoint.transport.openStream({
          ...call,
          headers: await this.headersFor(call, endpoint, options, ++attempt),
          control,
          ...(options.lastEventId === undefined ? {} : { lastEventId: options.lastEventId }),
        }),
    });
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
    const tenant = options.tenant ?? requested ?? this.settings.tenant ?? endpoint.selected.interface.tenant;
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
      ...(await resolveHeaders(this.settings.headers, { operation: call.operation as UnaryOperation, url: url.href, interface: endpoint.selected.interface, attempt })),
      ...normaliseHeaders(options.headers),
    };
    this.settings.credentialScope.check(url, endpoint.verified, headers);
    const extensionsKey = EXTENSIONS_HEADER.toLowerCase();
    const extensions = parseExtensionsHeader([...this.settings.extensions, ...(options.extensions ?? []), ...(headers[extensionsKey] === undefined ? [] : [headers[extensionsKey]])]);
    delete headers[extensionsKey];
    if (extensions.length > 0) headers[extensionsKey] = extensions.join(', ');
    headers[VERSION_HEADER.toLowerCase()] = PROTOCOL_VERSION;
    injectTraceContext(headers); // the call's span: the peer's work joins this trace
    return headers;
  }

  private retryable(operation: string): boolean {
    return IDEMPOTENT.has(operation) || (operation === 'SendMessage' && this.settings.http.retry?.sendMessage === true);
  }
}

/** An answer decoded with its schema; one that does not fit is the peer's fault, not the caller's. */
function decodeAnswer(schema: Schema, raw: unknown, what: string, target: string, endpoint: Endpoint): unknown {
  try {
    return decode(schema, raw);
  } catch (error) {
    if (!(error instanceof InvalidParamsError)) throw error;
    throw new InvalidAgentResponseError(`${target}: ${what} is not valid A2A ${endpoint.selected.protocolVersion} (${error.violationsText(10)})`);
  }
}
