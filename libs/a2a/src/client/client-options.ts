/** The options of `A2AClient`, of its calls and of its streams. */
import type { AgentCard } from '../protocol/types.js';
import type { A2AHttpOptions } from './a2a-http.js';
import type { AgentCardResolver, AgentCardResolverOptions, CardVerification } from './card-resolver.js';
import type { CredentialScopeOptions } from './credential-scope.js';
import type { A2AHeaderValues, A2AHeadersOption } from './headers.js';
import type { A2ABinding } from './interface-selection.js';

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
