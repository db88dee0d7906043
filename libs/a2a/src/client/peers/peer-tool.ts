/** What PeerToolProvider hands out: a peer's skill as a tool, what its call is given, and what is known of a peer. */
import type { JsonObject } from '../../protocol/types.js';
import type { A2ACircuitState } from '../resilience.js';
import type { PeerScope } from './credentials.js';
import type { PeerToolArgs, PeerToolResult } from './peer-tool-specs.js';

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
