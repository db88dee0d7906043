/** What an agent author implements, and the shapes the executor API speaks. */
import type { TaskContext } from './task-context.js';

export type { A2ACaller } from './a2a-caller.js';
export type { AgentTool, ToolInvocation } from './agent-tool.js';
export type { MessageInput } from './task-context.js';

/**
 * An agent's logic. Mark the class with `@A2AAgent({...})`; it is an ordinary Nest provider.
 * `execute` runs one turn: from the incoming message to a reply, a terminal state or an
 * interrupted one (INPUT_REQUIRED, AUTH_REQUIRED). A thrown error fails the task with a safe message.
 * @publicApi
 */
export interface AgentExecutor {
  execute(ctx: TaskContext): Promise<void> | void;
}
