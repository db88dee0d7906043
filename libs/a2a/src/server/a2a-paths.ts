/**
 * Where the module's routes are: the binding paths, the per-agent prefix, the cards and the JWKS.
 * Fixed when the module is compiled (Nest routes are static), for `forRoot` and `forRootAsync` alike.
 */
import { A2AConfigurationError } from '../config/a2a-configuration.error.js';
import { Check, optionProblems } from '../config/option-validation.js';
import { WELL_KNOWN_AGENT_CARD_PATH } from '../protocol/agent-card.js';
import { V03_LEGACY_AGENT_CARD_PATH } from '../protocol/v03/constants.js';

/** @publicApi */
export interface A2APathOptions {
  /** Path of the JSON-RPC binding of the default agent, or `false` to not mount it. Default `/a2a/jsonrpc`. */
  jsonRpc?: string | false;
  /** Path of the HTTP+JSON binding of the default agent, or `false` to not mount it. Default `/a2a/rest`. */
  rest?: string | false;
  /** Per-agent prefix: agent `x` is at `{agents}/x/.well-known/agent-card.json` and `{agents}/x{jsonRpc}`. Default `/agents`. */
  agents?: string;
  /** Where the public keys of the card signatures are served (with `signing`). Default `/.well-known/jwks.json`. */
  jwks?: string;
}

export interface ResolvedA2APaths {
  readonly jsonRpc: string | false;
  readonly rest: string | false;
  readonly agents: string;
  readonly jwks: string;
}

/** A route path segment of an agent: its name, or the route parameter of every agent (`:agent`). */
export type AgentSegment = string | undefined;

const PATH_PATTERN = /^\/[A-Za-z0-9._~\-/]*$/;
const isPath = (value: unknown) => typeof value === 'string' && PATH_PATTERN.test(value) && (!value.endsWith('/') || value === '/');
const pathProblem = (example: string) => `must be a path such as "${example}" (letters, digits, - . _ ~ /; no trailing slash)`;

class PathsDto {
  @Check((value, paths) => value !== false || paths.rest !== false, 'at least one binding (jsonRpc or rest) must be mounted')
  @Check((value) => value === false || isPath(value), pathProblem('/a2a/jsonrpc'))
  jsonRpc?: unknown;
  @Check((value) => value === false || isPath(value), pathProblem('/a2a/rest')) rest?: unknown;
  @Check((value) => value !== '/', 'must not be "/"')
  @Check(isPath, pathProblem('/a2a/agents'))
  agents?: unknown;
  @Check(isPath, pathProblem('/a2a/jwks')) jwks?: unknown;
}

/** @throws A2AConfigurationError listing every problem */
export function resolveA2APaths(paths: A2APathOptions = {}): ResolvedA2APaths {
  const problems = optionProblems(PathsDto, paths, 'paths');
  if (problems.length > 0) throw new A2AConfigurationError(problems);
  return {
    jsonRpc: paths.jsonRpc === undefined ? '/a2a/jsonrpc' : paths.jsonRpc,
    rest: paths.rest === undefined ? '/a2a/rest' : paths.rest,
    agents: paths.agents ?? '/agents',
    jwks: paths.jwks ?? '/.well-known/jwks.json',
  };
}

/** App path of the base of an agent's routes: the root for the default agent (undefined), `{agents}/{agent}` otherwise. */
export function agentBase(paths: ResolvedA2APaths, agent: AgentSegment): string {
  return agent === undefined ? '' : `${paths.agents}/${agent}`;
}

/** App paths of one agent's bindings: the root paths (default agent) or its per-agent paths. */
export function bindingPaths(paths: ResolvedA2APaths, agent: AgentSegment): { jsonRpc?: string; rest?: string } {
  const base = agentBase(paths, agent);
  return {
    jsonRpc: paths.jsonRpc === false ? undefined : `${base}${paths.jsonRpc}`,
    rest: paths.rest === false ? undefined : `${base}${paths.rest}`,
  };
}

/** App path of an agent's card: the root one (default agent) or its per-agent one. */
export function agentCardPath(paths: ResolvedA2APaths, agent: AgentSegment): string {
  return `${agentBase(paths, agent)}${WELL_KNOWN_AGENT_CARD_PATH}`;
}

/** App path of an agent's card where A2A 0.2 put it (`/.well-known/agent.json`). */
export function legacyCardPath(paths: ResolvedA2APaths, agent: AgentSegment): string {
  return `${agentBase(paths, agent)}${V03_LEGACY_AGENT_CARD_PATH}`;
}
