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
import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { A2AConfigurationError } from '../../config/a2a-configuration.error.js';
import { A2A_OPTIONS } from '../../config/a2a.constants.js';
import { EgressRefusedError, EgressRequestError } from '../../net/egress-errors.js';
import { EgressPolicy } from '../../net/egress-policy.js';
import type { PinnedDispatcher } from '../../net/pinned-dispatcher.js';
import { redactUrl, redactUrlsIn } from '../../net/redact-url.js';
import { CardSignatureError } from '../../protocol/card-verification.js';
import { InternalError, InvalidAgentResponseError, UnavailableError } from '../../protocol/errors.js';
import { A2AClient } from '../a2a-client.js';
import { createClientDispatcher } from '../a2a-http.js';
import { AgentCardResolver } from '../card-resolver.js';
import { A2AHttpError, A2ATimeoutError, CircuitOpenError, CredentialsWithheldError, InvalidClientOptionsError, NoCompatibleInterfaceError } from '../client-errors.js';
import { errorFacts } from '../error-mapping.js';
import { selectInterface } from '../interface-selection.js';
import { A2ACircuitBreakers } from '../resilience.js';
import { A2AClientPool } from './client-pool.js';
import { CredentialNotFoundError, CredentialResolver, type PeerScope } from './credentials.js';
import { PeerCredentials } from './peer-credentials.js';
import type { ResolvedPeer, ResolvedPeersOptions } from './peer-options.js';
import type { PeerDiagnostics, PeerTool, PeerToolInvocation } from './peer-tool.js';
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

/**
 * Whom the credential of an app's own client (`@InjectA2AClient`) is resolved for: the app itself,
 * not one of its callers. A `CredentialResolver` handing out per-caller credentials sees this subject.
 * @publicApi
 */
export const APP_SCOPE: PeerScope = Object.freeze({ subject: 'nestjs-a2a:app' });

/**
 * Remote A2A agents as tools (see the file comment). Inject it into an agent:
 * `const tools = await peers.tools(ctx.caller); await ctx.runTool(tool, { text })`.
 * @publicApi
 */
@Injectable()
export class PeerToolProvider implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('A2A');
  private readonly peers = new Map<string, PeerRuntime>();
  private readonly breakers: A2ACircuitBreakers;
  private readonly pool: A2AClientPool;
  private readonly credentials: PeerCredentials;
  /** The app's own client of each peer (`@InjectA2AClient`), made on first use. */
  private readonly appClients = new Map<string, A2AClient>();

  constructor(
    @Inject(A2A_OPTIONS) private readonly options: ResolvedPeersOptions,
    @Inject(CredentialResolver) credentialResolver: CredentialResolver,
    @Inject(ToolApproval) private readonly approval: ToolApproval,
    @Optional() @Inject(DiscoveryService) discovery?: DiscoveryService,
  ) {
    const { outbound } = options;
    this.credentials = new PeerCredentials(credentialResolver, discovery);
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

  /**
   * Finds the custom credential strategies and checks that every peer's scheme has one: the
   * problems, for the module's start-up check to list with every other.
   */
  findCredentialStrategies(): string[] {
    return this.credentials.findStrategies(this.options.peers);
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
      this.credentials.warnIfMissing(peer.options);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.close();
    await Promise.all([...this.appClients.values()].map((client) => client.close().catch(() => undefined)));
    this.appClients.clear();
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

  /** Is a peer of this name configured? */
  has(peer: string): boolean {
    return this.peers.has(peer);
  }

  /**
   * The app's own client of a configured peer (what `@InjectA2AClient(peer)` injects): the peer's
   * card URL, credential, tenant, extensions, budget, binding and egress policy, sharing its card
   * cache, connections and breaker with its tools. The credential is resolved for
   * {@link APP_SCOPE}; calls on behalf of a caller go through `tools(caller)` instead.
   * @throws InvalidClientOptionsError when no peer has that name
   */
  clientOf(peer: string): A2AClient {
    const runtime = this.peers.get(peer);
    if (runtime === undefined) throw new InvalidClientOptionsError([`no peer is named ${JSON.stringify(peer.slice(0, 64))}`]);
    let client = this.appClients.get(peer);
    if (client === undefined) {
      client = this.newClient(runtime, APP_SCOPE);
      this.appClients.set(peer, client);
    }
    return client;
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
      () => this.newClient(peer, scope),
    );
  }

  private newClient(peer: PeerRuntime, scope: PeerScope): A2AClient {
    const { options } = peer;
    return new A2AClient({
      cardUrl: options.url,
      cardResolver: peer.resolver,
      dispatcher: peer.dispatcher,
      circuitBreakers: this.breakers,
      ...(this.options.outbound.retry === undefined ? {} : { retry: this.options.outbound.retry }),
      ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
      ...(options.preferredBinding === undefined ? {} : { preferredBinding: options.preferredBinding }),
      extensions: options.extensions,
      timeoutMs: options.timeoutMs,
      headers: (request) => this.credentials.headersFor(peer.options, scope, request),
      credentialOrigins: options.credentialOrigins,
    });
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
