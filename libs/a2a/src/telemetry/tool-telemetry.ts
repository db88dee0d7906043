/**
 * Tool calls (`ctx.runTool`): a span each, a child of the turn's (so a peer tool's outbound A2A
 * call is the tool's child), named by the tool and its step. Never its arguments or its result:
 * they are the caller's data.
 */
import { Observation, SpanKind, observing } from './observation.js';
import { ATTR, SPAN } from './telemetry-names.js';

/** Runs one tool call's `invoke` inside its span; exactly `invoke()` when nothing is recorded. */
export function observeToolCall<T>(tool: string, step: number, invoke: () => Promise<T>): Promise<T> {
  if (!observing()) return invoke();
  const observation = new Observation(SPAN.toolCall, SpanKind.INTERNAL, { [ATTR.toolName]: tool, [ATTR.toolStep]: step });
  return observation.run(async () => {
    try {
      return await invoke();
    } catch (error) {
      observation.fail(error);
      throw error;
    } finally {
      observation.end();
    }
  });
}
