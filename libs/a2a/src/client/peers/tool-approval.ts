/**
 * The app's say on every peer tool call: the same gate it puts in front of its other tools (a
 * policy check, a human in the loop, a budget), told who is calling.
 */
import type { PeerToolArgs } from './peer-tool-specs.js';
import type { PeerScope } from './credentials.js';

/** One call about to be made. @publicApi */
export interface ToolApprovalRequest {
  /** `{peer}__{skill}` */
  readonly tool: string;
  readonly peer: string;
  readonly skill: string;
  readonly args: PeerToolArgs;
  /** The caller of the agent that runs the tool (`ctx.caller`), with whatever the host's auth put on it. */
  readonly caller: PeerScope & { readonly user?: unknown; readonly authenticated?: boolean };
}

/** A refusal with a reason the agent (and its model) may see. @publicApi */
export interface ToolApprovalDecision {
  readonly approved: boolean;
  readonly reason?: string;
}

/**
 * Decides whether a peer tool call may go out. `false` (or `{ approved: false, reason }`) makes the
 * call fail with `ToolApprovalDeniedError` (`TOOL_DENIED`) before anything is sent. The default
 * approves every call. Bring your own with `A2AModule.forRoot({ toolApproval: MyApproval })`.
 * @publicApi
 */
export interface ToolApproval {
  approve(request: ToolApprovalRequest): boolean | ToolApprovalDecision | Promise<boolean | ToolApprovalDecision>;
}

/** Injection token of the {@link ToolApproval}. @publicApi */
export const ToolApproval = Symbol('A2A:ToolApproval');

/** The default: every call is approved. @publicApi */
export class ApproveAllTools implements ToolApproval {
  approve(): boolean {
    return true;
  }
}
