/**
 * Remote agents as tools: one tool per allowed skill of each peer's card, named `{peer}__{skill}`,
 * whose `invoke` sends the peer a message and returns its answer marked untrusted.
 *
 * - Grants are narrowed on every call from the peer's cached card (re-read once it is stale): a
 *   skill the peer dropped, or one the `allow` patterns no longer match, fails at once, even
 *   through a tool object obtained earlier.
 * - Clients are pooled per (caller scope, peer, credential, tenant), never per URL; credentials are
 *   resolved by name at every request (`CredentialResolver`), so a rotated secret is used at once.
 * - Required peers must answer at start-up; optional ones are looked up lazily, and while they
 *   cannot be reached their tools are left out and `diagnostics()` says why.
 * - Failures below A2A become `ToolUnavailableError` / `ToolTimeoutError` (retriable); errors the
 *   peer answered with surface as the protocol's own classes. URLs are redacted everywhere.
 * - Every call passes the app's `ToolApproval` first, with the caller's identity.
 */
import { randomUUID } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { A2AConfigurationError } from '../../config/a2a-configuration.error.js';
import { EgressRefusedError, EgressRequestError } from '../../net/egress-errors.js';
import { EgressPolicy } from '../../net/egress-policy.js';
import type { PinnedDispatcher } from '../../net/pinned-dispatcher.js';
import { redactUrl, redactUrlsIn } from '../../net/redact-url.js';
import { CardSignatureError } from '../../protocol/card-verification.js';
import { InternalError, InvalidAgentResponseError, UnavailableError } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/types.js';
import { A2AClient } from '../a2a-client.js';
import { createClientDispatcher } from '../a2a-http.js';
import { AgentCardResolver } from '../card-resolver.js';
import { A2AHttpError, A2ATimeoutError, CircuitOpenError, CredentialsWithheldError, NoCompatibleInterfaceError } from '../client-errors.js';
import { errorFacts } from '../error-mapping.js';
import type { A2AHeaderValues, A2ARequestInfo } from '../headers.js';
import { selectInterface } from '../interface-selection.js';
import { A2ACircuitBreakers, type A2ACircuitState } from '../resilience.js';
import { A2AClientPool } from './client-pool.js';
import {
  A2ACredentialStrategy,
  ApiKeyCredentialStrategy,
  BearerCredentialStrategy,
  CredentialNotFoundError,
  CredentialResolver,
  EnvCredentialResolver,
  type CredentialStrategy,
  type PeerScope,
} from './credentials.js';
import { BUILT_IN_CREDENTIAL_SCHEMES, type ResolvedPeer, type ResolvedPeersOptions } from './peer-options.js';
import {
  ToolApprovalDeniedError,
  ToolInputError,
  ToolNotGrantedError,
  ToolTimeoutError,
  ToolUnavailableError,
  PeerToolError,
} from './peer-tool-errors.js';
import { argsProblem, peerToolSpecs, toolMessage, toolResult, type PeerToolArgs, type PeerToolResult, type PeerToolSpec } from './peer-tool-specs.js';
import { ToolApproval } from './tool-approval.js';

/** The resolved outbound options (`ResolvedPeersOptions`). */
export const A2A_PEER_OPTIONS = Symbol('A2A:PEER_OPTIONS');

/** What a peer tool is given besides its arguments (`ctx.runTool` passes the task's signal and caller). @publicApi */
export interface PeerToolInvocation {
  /** Aborts the call (the task was canceled or timed out). */
  readonly signal?: AbortSignal;
  /** Who the call is made for; it must be the scope the tool was listed for. */
  readonly caller: PeerScope & { readonly user?: unknown; readonly authenticated?: boolean };
}

/**
 * A peer's skill as a tool: the shape of `AgentTool`, so `ctx.runTool(tool, { text })` runs it
 * as a step of a task.
 * @publicApi
 */
export interface PeerTool {
  /** `{peer}__{skill}` */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly peer: string;
  readonly skill: string;
  /**
   * Sends the peer a message and waits for its answer (blocking SendMessage).
   * @throws ToolInputError, ToolNotGrantedError, ToolApprovalDeniedError, ToolUnavailableError,
   *   ToolTimeoutError, an A2AError the peer answered with, or the signal's abort reason
   */
  invoke(args: PeerToolArgs, invocation: PeerToolInvocation): Promise<PeerToolResult>;
}

/** What is known of a peer. @publicApi */
export interface PeerDiagnostics {
  readonly name: string;
  /** The configured URL (redacted). */
  readonly url: string;
  readonly optional: boolean;
  /** `unknown`: not looked up yet (optional peers are looked up when tools are first asked for). */
  readonly state: 'unknown' | 'reachable' | 'unreachable';
  /** Why the last look-up or call failed (redacted), while it is `unreachable`, or the last failure of a call. */
  readonly lastError?: string;
  /** When (ISO 8601). */
  readonly lastErrorAt?: string;
  /** When its card was last fetched or revalidated (ISO 8601). */
  readonly cardFetchedAt?: string;
  /** The `name` on its card. */
  readonly cardName?: string;
  /** The tools its last card granted. */
  readonly tools: readonly string[];
  /** The circuit breaker of the origin its calls go to. */
  readonly breaker: A2ACircuitState;
  /** Pooled clients (one per caller scope, credential and tenant). */
  readonly clients: number;
}

interface PeerRuntime {
  readonly options: ResolvedPeer;
  readonly policy: EgressPolicy;
  readonly dispatcher: PinnedDispatcher;
  readonly resolver: AgentCardResolver;
  state: PeerDiagnostics['state'];
  lastError?: string;
  lastErrorAt?: number;
  cardFetchedAt?: number;
  cardName?: string;
  tools: readonly string[];
  /** The origin calls go to (the selected interface's), for the breaker's state. */
  origin: string;
}

const BUILT_IN_STRATEGIES: Record<(typeof BUILT_IN_CREDENTIAL_SCHEMES)[number], CredentialStrategy> = {
  bearer: new BearerCredentialStrategy(),
  apiKey: new ApiKeyCredentialStrategy(),
};

/** Characters a header value cannot carry (a secret read from a file often ends with a newline: trimmed first). */
const HEADER_UNSAFE = /[\0-\x08\x0a-\x1f\x7f]/;

/**
 * Remote A2A agents as tools (see the file comment). Inject it into an agent:
 * `const tools = await peers.tools(ctx.caller); await ctx.runTool(tool, { text })`.
 * @publicApi
 */
@Injectable()
export class PeerToolProvider implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('A2A');
  private readonly peers = new Map<string, PeerRuntime>();
  private readonly breakers: A2ACircuitBreakers;
  private readonly pool: A2AClientPool;
  private readonly strategies = new Map<string, CredentialStrategy>(Object.entries(BUILT_IN_STRATEGIES));

  constructor(
    @Inject(A2A_PEER_OPTIONS) private readonly options: ResolvedPeersOptions,
    @Inject(CredentialResolver) private readonly credentials: CredentialResolver,
    @Inject(ToolApproval) private readonly approval: ToolApproval,
    @Optional() @Inject(DiscoveryService) private readonly discovery?: DiscoveryService,
  ) {
    const { outbound } = options;
    this.breakers = new A2ACircuitBreakers(outbound.circuitBreaker);
    this.pool = new A2AClientPool(outbound.maxClients);
    for (const peer of options.peers) {
      const policy = new EgressPolicy(peer.egress);
      const dispatcher = createClientDispatcher(policy, outbound.connectTimeoutMs);
      const resolver = new AgentCardResolver({
        dispatcher,
        circuitBreakers: this.breakers,
        ...(outbound.retry === undefined ? {} : { retry: outbound.retry }),
        timeoutMs: outbound.discoveryTimeoutMs,
        defaultTtlMs: outbound.defaultTtlMs,
        maxTtlMs: outbound.maxTtlMs,
      });
      this.peers.set(peer.name, { options: peer, policy, dispatcher, resolver, state: 'unknown', tools: [], origin: new URL(peer.url).origin });
    }
  }

  /** Finds the custom credential strategies and checks that every peer's scheme has one. */
  onModuleInit(): void {
    const problems: string[] = [];
    for (const wrapper of this.discovery?.getProviders({ metadataKey: A2ACredentialStrategy.KEY }) ?? []) {
      const name = this.discovery!.getMetadataByDecorator(A2ACredentialStrategy, wrapper);
      const label = wrapper.metatype?.name ?? String(wrapper.token);
      if (typeof name !== 'string' || name === '') continue;
      const instance = wrapper.instance as Partial<CredentialStrategy> | undefined;
      if (!instance || typeof instance.headers !== 'function') {
        problems.push(`@A2ACredentialStrategy('${name}') ${label}: the class must implement CredentialStrategy (a headers(context) method)`);
      } else if (this.strategies.has(name)) {
        problems.push(`@A2ACredentialStrategy('${name}') ${label}: the scheme "${name}" already has a strategy`);
      } else this.strategies.set(name, instance as CredentialStrategy);
    }
    for (const [index, peer] of this.options.peers.entries()) {
      if (peer.scheme !== undefined && !this.strategies.has(peer.scheme)) {
        problems.push(
          `peers[${index}].scheme (peer "${peer.name}"): no credential strategy is named "${peer.scheme}"; use 'bearer', 'apiKey', or mark a provider @A2ACredentialStrategy('${peer.scheme}')`,
        );
      }
    }
    if (problems.length > 0) throw new A2AConfigurationError(problems);
  }

  /**
   * Required peers must answer now (their cards are fetched and an interface chosen), or start-up
   * fails naming them. Optional peers are left for later: they may be this very app, which is not
   * listening yet.
   */
  async onApplicationBootstrap(): Promise<void> {
    const outcomes = await Promise.all(
      [...this.peers.values()]
        .filter((peer) => !peer.options.optional)
        .map(async (peer) => {
          try {
            await this.lookUp(peer);
            return undefined;
          } catch (error) {
            return `peers: the required peer "${peer.options.name}" could not be reached or used at start-up (${this.describeError(error)}); make it reachable, or declare it optional: true`;
          }
        }),
    );
    const problems = outcomes.filter((p): p is string => p !== undefined);
    if (problems.length > 0) throw new A2AConfigurationError(problems);
    for (const peer of this.peers.values()) {
      const { name, url, optional } = peer.options;
      this.logger.log(`Peer "${name}": ${redactUrl(url)} (${optional ? 'optional, looked up when its tools are first asked for' : `reachable, tools ${peer.tools.join(', ') || 'none'}`})`);
      this.warnIfCredentialMissing(peer);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.close();
    await Promise.all([...this.peers.values()].map(async (peer) => {
      await peer.resolver.close();
      await peer.dispatcher.close().catch(() => undefined);
    }));
  }

  /**
   * The tools `scope` may use: one per allowed skill of each reachable peer. Peers that cannot be
   * reached are left out (see {@link diagnostics}); this never throws for them.
   */
  async tools(scope: PeerScope): Promise<PeerTool[]> {
    const lists = await Promise.all(
      [...this.peers.values()].map(async (peer) => {
        let specs: PeerToolSpec[];
        try {
          specs = await this.lookUp(peer);
        } catch {
          return [];
        }
        return specs.map((spec) => this.toolFor(peer, spec, scope));
      }),
    );
    return lists.flat();
  }

  /** What is known of every peer, without contacting any. */
  diagnostics(): PeerDiagnostics[] {
    return [...this.peers.values()].map((peer) => ({
      name: peer.options.name,
      url: redactUrl(peer.options.url),
      optional: peer.options.optional,
      state: peer.state,
      ...(peer.lastError === undefined ? {} : { lastError: peer.lastError, lastErrorAt: new Date(peer.lastErrorAt!).toISOString() }),
      ...(peer.cardFetchedAt === undefined ? {} : { cardFetchedAt: new Date(peer.cardFetchedAt).toISOString() }),
      ...(peer.cardName === undefined ? {} : { cardName: peer.cardName }),
      tools: peer.tools,
      breaker: this.breakers.state(peer.origin),
      clients: this.pool.countFor(peer.options.name),
    }));
  }

  /** Looks every peer up now (from the card cache while fresh), then reports as {@link diagnostics} does: for health checks. */
  async check(): Promise<PeerDiagnostics[]> {
    await Promise.all([...this.peers.values()].map((peer) => this.lookUp(peer).catch(() => undefined)));
    return this.diagnostics();
  }

  // ---- internals ----

  private toolFor(peer: PeerRuntime, spec: PeerToolSpec, scope: PeerScope): PeerTool {
    const frozenScope: PeerScope = { subject: scope.subject, ...(scope.tenant === undefined ? {} : { tenant: scope.tenant }) };
    return {
      name: spec.name,
      description: spec.description,
      inputSchema: spec.inputSchema,
      peer: peer.options.name,
      skill: spec.skill.id,
      invoke: (args, invocation) => this.invoke(peer, spec, frozenScope, args, invocation),
    };
  }

  /**
   * The tools the peer's card grants now (the card cached while fresh), once an interface this
   * client can use is found; the outcome is recorded for diagnostics.
   */
  private async lookUp(peer: PeerRuntime, signal?: AbortSignal): Promise<PeerToolSpec[]> {
    try {
      const resolved = await peer.resolver.resolve(peer.options.url, signal === undefined ? {} : { signal });
      const selected = selectInterface(resolved.card, {
        policy: peer.policy,
        cardUrl: redactUrl(resolved.url),
        ...(peer.options.preferredBinding === undefined ? {} : { preferredBinding: peer.options.preferredBinding }),
      });
      peer.origin = selected.url.origin;
      peer.cardFetchedAt = resolved.fetchedAt;
      peer.cardName = resolved.card.name;
      const specs = peerToolSpecs(peer.options, resolved.card);
      peer.tools = specs.map((s) => s.name);
      this.reached(peer);
      return specs;
    } catch (error) {
      if (!signal?.aborted) this.unreachable(peer, error);
      throw error;
    }
  }

  private reached(peer: PeerRuntime): void {
    if (peer.state === 'unreachable') this.logger.log(`Peer "${peer.options.name}" is reachable again`);
    peer.state = 'reachable';
    peer.lastError = undefined;
    peer.lastErrorAt = undefined;
  }

  private unreachable(peer: PeerRuntime, error: unknown): void {
    const message = this.describeError(error);
    if (peer.state !== 'unreachable') this.logger.warn(`Peer "${peer.options.name}" is unreachable: ${message}`);
    peer.state = 'unreachable';
    peer.lastError = message;
    peer.lastErrorAt = Date.now();
  }

  /** A failed call leaves the peer's state alone (its card may be fine) but is remembered. */
  private callFailed(peer: PeerRuntime, error: PeerToolError): void {
    if (error instanceof ToolUnavailableError && peer.state === 'reachable' && error.retriable) peer.state = 'unreachable';
    peer.lastError = error.message;
    peer.lastErrorAt = Date.now();
  }

  private describeError(error: unknown): string {
    const name = error instanceof Error ? error.name : 'Error';
    const message = error instanceof Error ? error.message : String(error);
    return redactUrlsIn(`${name}: ${message}`);
  }

  private client(peer: PeerRuntime, scope: PeerScope): A2AClient {
    const { options } = peer;
    return this.pool.get(
      { subject: scope.subject, scopeTenant: scope.tenant ?? '', peer: options.name, credential: options.credential ?? '', tenant: options.tenant ?? '' },
      () =>
        new A2AClient({
          cardUrl: options.url,
          cardResolver: peer.resolver,
          dispatcher: peer.dispatcher,
          circuitBreakers: this.breakers,
          ...(this.options.outbound.retry === undefined ? {} : { retry: this.options.outbound.retry }),
          ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
          ...(options.preferredBinding === undefined ? {} : { preferredBinding: options.preferredBinding }),
          extensions: options.extensions,
          timeoutMs: options.timeoutMs,
          headers: (request) => this.headersFor(peer, scope, request),
          credentialOrigins: options.credentialOrigins,
        }),
    );
  }

  /** The credential's headers for one request: resolved now, kept nowhere. */
  private async headersFor(peer: PeerRuntime, scope: PeerScope, request: A2ARequestInfo): Promise<A2AHeaderValues | undefined> {
    const { scheme, credential, name, apiKeyHeader } = peer.options;
    if (scheme === undefined) return undefined;
    const strategy = this.strategies.get(scheme);
    if (strategy === undefined) throw new CredentialNotFoundError(credential ?? scheme, `credential strategy "${scheme}", which is not registered`);
    return strategy.headers({
      peer: name,
      scope,
      request,
      apiKeyHeader,
      ...(credential === undefined ? {} : { credential }),
      secret: () => this.secret(peer, scope),
    });
  }

  private async secret(peer: PeerRuntime, scope: PeerScope): Promise<string> {
    const { credential, name } = peer.options;
    if (credential === undefined) throw new CredentialNotFoundError('(none)', `options of peer "${name}", which name no credential`);
    const value = await this.credentials.resolve(credential, { peer: name, scope });
    const secret = typeof value === 'string' ? value.trim() : '';
    if (secret === '') throw new CredentialNotFoundError(credential, this.credentials.describe?.(credential));
    if (HEADER_UNSAFE.test(secret)) throw new CredentialNotFoundError(credential, `${this.credentials.describe?.(credential) ?? 'resolver'}, whose value holds characters a header cannot carry`);
    return secret;
  }

  /** Only the environment can be asked ahead of a call: another resolver may need a real caller. */
  private warnIfCredentialMissing(peer: PeerRuntime): void {
    const { credential, name } = peer.options;
    if (credential === undefined || !(this.credentials instanceof EnvCredentialResolver)) return;
    if ((this.credentials.resolve(credential) ?? '').trim() !== '') return;
    const where = this.credentials.describe?.(credential);
    this.logger.warn(`Peer "${name}": credential "${credential}" is not set${where === undefined ? '' : ` (${where})`}; calls to it fail until it is`);
  }

  private async invoke(peer: PeerRuntime, spec: PeerToolSpec, scope: PeerScope, args: PeerToolArgs, invocation: PeerToolInvocation | undefined): Promise<PeerToolResult> {
    const tool = spec.name;
    const peerName = peer.options.name;
    const problem = argsProblem(spec, args);
    if (problem !== undefined) throw new ToolInputError(tool, peerName, problem);
    const caller = invocation?.caller ?? scope;
    if (caller.subject !== scope.subject || (caller.tenant ?? '') !== (scope.tenant ?? '')) {
      throw new ToolNotGrantedError(tool, peerName, 'this tool was listed for another caller; ask tools() for the caller at hand');
    }
    // one budget for the whole call: card look-up, approval and the blocking SendMessage
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new ToolTimeoutError(tool, peerName, peer.options.timeoutMs)), peer.options.timeoutMs);
    timer.unref();
    const callerSignal = invocation?.signal;
    const signal = callerSignal === undefined ? deadline.signal : AbortSignal.any([callerSignal, deadline.signal]);
    const startedAt = Date.now();
    try {
      // grants are narrowed now, from the card as it is (cached while fresh), not as it was when the tool was listed
      const current = (await this.lookUp(peer, signal)).find((s) => s.name === tool && s.skill.id === spec.skill.id);
      if (current === undefined) {
        throw new ToolNotGrantedError(tool, peerName, `the peer no longer grants skill "${spec.skill.id}" (it left the peer's card, or the allow patterns no longer match it)`);
      }
      const decision = await this.approval.approve({ tool, peer: peerName, skill: current.skill.id, args, caller });
      const approved = typeof decision === 'boolean' ? decision : decision?.approved === true;
      if (!approved) throw new ToolApprovalDeniedError(tool, peerName, typeof decision === 'object' ? decision?.reason : undefined);
      const response = await this.client(peer, scope).sendMessage(
        { message: toolMessage(args, randomUUID()) },
        { signal, timeoutMs: Math.max(1, peer.options.timeoutMs - (Date.now() - startedAt)) },
      );
      this.reached(peer);
      return toolResult(current, response);
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      throw this.toolError(error, peer, tool, deadline.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Failures below A2A as tool errors; what the peer answered, and the app's own errors, as they are. */
  private toolError(error: unknown, peer: PeerRuntime, tool: string, deadline: AbortSignal): unknown {
    if (error instanceof PeerToolError && !(error instanceof ToolTimeoutError)) return error;
    const peerName = peer.options.name;
    const because = (e: unknown) => this.describeError(e);
    let mapped: PeerToolError | undefined;
    if (deadline.aborted || error instanceof A2ATimeoutError || error instanceof ToolTimeoutError) {
      mapped = new ToolTimeoutError(tool, peerName, peer.options.timeoutMs, { cause: error });
    } else if (error instanceof CircuitOpenError) {
      mapped = new ToolUnavailableError(tool, peerName, `the peer failed repeatedly: its circuit breaker is open, calls fail fast for up to ${error.halfOpenAfterMs} ms`, { cause: error });
    } else if (error instanceof CredentialNotFoundError) {
      mapped = new ToolUnavailableError(tool, peerName, error.message, { cause: error, retriable: false });
    } else if (error instanceof EgressRefusedError || error instanceof NoCompatibleInterfaceError || error instanceof CardSignatureError || error instanceof CredentialsWithheldError) {
      mapped = new ToolUnavailableError(tool, peerName, `the peer cannot be used (${because(error)})`, { cause: error, retriable: false });
    } else if (error instanceof A2AHttpError) {
      const transient = error.statusCode >= 500 || error.statusCode === 429 || error.statusCode === 408;
      mapped = new ToolUnavailableError(tool, peerName, `the peer is unavailable (${because(error)})`, { cause: error, retriable: transient });
    } else if (
      error instanceof EgressRequestError ||
      error instanceof InvalidAgentResponseError ||
      error instanceof UnavailableError ||
      error instanceof InternalError ||
      // whatever a failing server or gateway answered with (a 503 with some JSON of its own …)
      (errorFacts(error)?.statusCode ?? 0) >= 500
    ) {
      mapped = new ToolUnavailableError(tool, peerName, `the peer is unavailable (${because(error)})`, { cause: error });
    }
    if (mapped === undefined) return error;
    this.callFailed(peer, mapped);
    return mapped;
  }
}
