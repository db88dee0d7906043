/**
 * `nestjs-a2a/client`: calling other agents. `A2AClient` for one remote agent (card discovery, both
 * bindings, deadlines, retries, breakers, the egress policy), `A2AClientPool`, and the
 * `PeerToolProvider` that turns configured peers into tools, with credentials by name and the
 * approval of every call. Anything not exported here may change. The A2A errors a peer answers
 * with (`TaskNotFoundError` ...) and the wire types come from `nestjs-a2a`.
 *
 * @module nestjs-a2a/client
 */

// one remote agent
export { A2AClient, type A2ACallOptions, type A2AClientOptions, type A2AStreamOptions, type A2ASubscribeOptions } from './client/a2a-client.js';
export { A2AEventStream } from './client/a2a-event-stream.js';
export type { A2AHttpOptions } from './client/a2a-http.js';
export { AgentCardResolver, agentCardUrl, type AgentCardResolverOptions, type CardVerification, type ResolveCardOptions, type ResolvedAgentCard } from './client/card-resolver.js';
export type { A2AHeaderValues, A2AHeadersOption, A2AHeadersProvider, A2ARequestInfo } from './client/headers.js';
export type { CredentialScopeOptions } from './client/credential-scope.js';
export type { A2ABinding } from './client/interface-selection.js';
export { A2ACircuitBreakers, type A2ACircuitBreakerOptions, type A2ACircuitState, type A2ARetryOptions } from './client/resilience.js';
export {
  A2AClientError,
  A2AHttpError,
  A2ATimeoutError,
  CircuitOpenError,
  CredentialsWithheldError,
  InvalidClientOptionsError,
  NoCompatibleInterfaceError,
  UnknownA2AError,
  type A2ATimeoutKind,
} from './client/client-errors.js';

// signed cards (spec §8.4): what a client checks
export {
  CardSignatureError,
  DEFAULT_CARD_SIGNATURE_ALGORITHMS,
  verifyAgentCard,
  type CardKeyResolver,
  type CardKeySource,
  type CardVerificationOptions,
  type VerifiedCardSignature,
} from './protocol/card-verification.js';

// the egress (SSRF) policy every URL a stranger gave passes, and what it refuses with
export { EgressPolicy, type EgressPolicyOptions } from './net/egress-policy.js';
export type { EgressLookup } from './net/egress-lookup.js';
export { EgressError, EgressRefusedError, EgressRequestError, type EgressRefusalReason } from './net/egress-errors.js';

// several clients, and the injectable client of a configured peer
export { A2AClientPool, type PoolKey } from './client/peers/client-pool.js';
export { InjectA2AClient, getA2AClientToken } from './config/a2a.constants.js';

// peers as tools: credentials by name, approval of every call
export { APP_SCOPE, PeerToolProvider } from './client/peers/peer-tool-provider.js';
export type { PeerDiagnostics, PeerTool, PeerToolInvocation } from './client/peers/peer-tool.js';
export { PEER_TOOL_SEPARATOR, peerToolName, type PeerToolArgs, type PeerToolResult, type PeerToolSpec } from './client/peers/peer-tool-specs.js';
export {
  PeerToolError,
  ToolApprovalDeniedError,
  ToolInputError,
  ToolNotGrantedError,
  ToolTimeoutError,
  ToolUnavailableError,
  type PeerToolErrorCode,
} from './client/peers/peer-tool-errors.js';
export {
  A2ACredentialStrategy,
  ApiKeyCredentialStrategy,
  BearerCredentialStrategy,
  CredentialNotFoundError,
  CredentialResolver,
  EnvCredentialResolver,
  credentialEnvName,
  type CredentialContext,
  type CredentialRequest,
  type CredentialStrategy,
  type PeerScope,
} from './client/peers/credentials.js';
export { ApproveAllTools, ToolApproval, type ToolApprovalDecision, type ToolApprovalRequest } from './client/peers/tool-approval.js';
