/** What an agent author implements, and the shapes the executor API speaks. */
import type { JsonObject, Message, Part } from '../protocol/types.js';
import type { TaskContext } from './task-context.js';

/**
 * An agent's logic. Mark the class with `@A2AAgent({...})`; it is an ordinary Nest provider.
 * `execute` runs one turn: from the incoming message to a reply, a terminal state or an
 * interrupted one (INPUT_REQUIRED, AUTH_REQUIRED). A thrown error fails the task with a safe message.
 * @publicApi
 */
export interface AgentExecutor {
  execute(ctx: TaskContext): Promise<void> | void;
}

/** Who is calling, as the host's authentication established it. @publicApi */
export interface A2ACaller {
  /** Stable identifier of the caller; every caller shares one subject without authentication. */
  readonly subject: string;
  /** The tenant the caller acts in, if any (by default the one the request names). */
  readonly tenant?: string;
  /** What the host's guard put on the request (`req.user`), untouched. */
  readonly user?: unknown;
  /** Did the host's authentication establish who this is? */
  readonly authenticated?: boolean;
}

/** A message for a status or a reply: plain text, parts, or parts with message fields. @publicApi */
export type MessageInput = string | Part[] | (Pick<Message, 'parts'> & Partial<Pick<Message, 'metadata' | 'extensions' | 'referenceTaskIds'>>);

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
