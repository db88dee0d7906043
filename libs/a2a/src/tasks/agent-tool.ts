/** What an agent's tools look like (`ctx.runTool`): PeerToolProvider's tools have this shape too. */
import type { JsonObject } from '../protocol/types.js';
import type { A2ACaller } from './a2a-caller.js';

/** What a tool is given besides its arguments. @publicApi */
export interface ToolInvocation {
  /** Fires when the task is canceled or times out. */
  readonly signal: AbortSignal;
  readonly caller: A2ACaller;
}

/**
 * A tool an agent can run (`ctx.runTool`). PeerToolProvider's tools have this shape, so the
 * server never depends on the client.
 * @publicApi
 */
export interface AgentTool<Args = unknown, Result = unknown> {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of `Args`. */
  readonly inputSchema: JsonObject;
  invoke(args: Args, invocation: ToolInvocation): Promise<Result>;
}
