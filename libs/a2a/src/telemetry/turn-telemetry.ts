/** Executor turns: a span per turn (the executor runs inside it), their duration, and the tasks they finish. */
import { isTerminalState, type TaskState } from '../protocol/types.js';
import { Observation, SpanKind, observing } from './observation.js';
import { instruments } from './telemetry-api.js';
import { ATTR, SPAN } from './telemetry-names.js';

/** How a turn left its task: a state, `replied` (a Message answer, no task), or `undefined` (nothing stored). */
export type TurnEnd = TaskState | 'replied' | undefined;

/** One turn, observed; `undefined` when nothing is recorded. */
export function observeTurn(agent: string, taskId: string, contextId: string): TurnObservation | undefined {
  if (!observing()) return undefined;
  const observation = new Observation(SPAN.turn, SpanKind.INTERNAL, () => ({ [ATTR.agent]: agent, [ATTR.taskId]: taskId, [ATTR.contextId]: contextId }));
  return new TurnObservation(observation, agent);
}

export class TurnObservation {
  private thrown: string | undefined;

  constructor(
    private readonly observation: Observation,
    private readonly agent: string,
  ) {}

  /** Runs the executor inside the turn's span: its own spans and outbound calls are the turn's children. */
  run<T>(fn: () => T): T {
    return this.observation.run(fn);
  }

  /** The executor threw (its class is recorded, never its message). */
  threw(error: unknown): void {
    this.thrown = this.observation.fail(error);
  }

  end(state: TurnEnd): void {
    const observation = this.observation;
    observation.set(ATTR.taskState, state);
    if (!observation.end()) return;
    const meters = observation.meters;
    if (meters === undefined) return;
    const attributes = { [ATTR.agent]: this.agent, [ATTR.taskState]: state ?? 'none', ...(this.thrown === undefined ? {} : { [ATTR.errorType]: this.thrown }) };
    meters.turnDuration.record(observation.seconds, attributes);
    if (state !== undefined && state !== 'replied') recordTaskFinished(this.agent, state);
  }
}

/** Counts a task of `agent` that reached `state`, when it is final. */
export function recordTaskFinished(agent: string, state: TaskState): void {
  if (isTerminalState(state)) instruments()?.tasksFinished.add(1, { [ATTR.agent]: agent, [ATTR.taskState]: state });
}
