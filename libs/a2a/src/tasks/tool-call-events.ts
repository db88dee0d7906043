/**
 * What the tools of a task did, for in-process observers only (metrics, traces, audit): the wire
 * shows a tool call as an opaque step (`step 2/3`); its name, timing and outcome are told here.
 */
import { Logger } from '@nestjs/common';
import type { A2ACaller } from './a2a-caller.js';

/** One tool call, as `ctx.runTool` reports it: `started` before `invoke`, `finished` after it. @publicApi */
export interface ToolCallEvent {
  readonly phase: 'started' | 'finished';
  /** The published agent running the task. */
  readonly agent: string;
  readonly taskId: string;
  readonly contextId: string;
  readonly caller: A2ACaller;
  /** The tool's name (a peer tool's is `{peer}__{skill}`). */
  readonly tool: string;
  /** The step's ordinal in this turn (1 for the first tool call), as the wire shows it. */
  readonly step: number;
  /** The steps the executor announced (`ctx.expectSteps`), if it did. */
  readonly steps?: number;
  /** When the call started, in ms since the epoch. */
  readonly startedAt: number;
  /** `finished`: how long `invoke` took, in ms. */
  readonly durationMs?: number;
  /** `finished`: `succeeded`, or `failed` (invoke threw: `error`). */
  readonly outcome?: 'succeeded' | 'failed';
  /** `failed`: what invoke threw. In process only: it may name URLs, arguments, anything. */
  readonly error?: unknown;
}

export type ToolCallListener = (event: ToolCallEvent) => void;

/**
 * The tool calls of this instance's tasks. Inject it and listen; listeners run synchronously in
 * the turn: keep them quick (an error thrown by one is logged and changes nothing).
 * @publicApi
 */
export class ToolCallEvents {
  private readonly logger = new Logger('A2A');
  private readonly listeners = new Set<ToolCallListener>();

  /** @returns a function that removes the listener */
  on(listener: ToolCallListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** @internal */
  emit(event: ToolCallEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger.warn(`A tool call listener threw ${(error as Error)?.name ?? typeof error}`);
      }
    }
  }
}
