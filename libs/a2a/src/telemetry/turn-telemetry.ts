/** Executor turns: a span per turn (the executor runs inside it), their duration, and the tasks they finish. */
import { isTerminalState, type TaskState } from '../protocol/types.js';
import { Observation, SpanKind } from './observation.js';
import { errorType, instruments, tracing, type A2AInstruments } from './telemetry-api.js';
import { ATTR, SPAN } from './telemetry-names.js';

/** How a turn left its task: a state, `replied` (a Message answer, no task), or `undefined` (nothing stored). */
export type TurnEnd = TaskState | 'replied' | undefined;

/** One turn, observed; `undefined` when nothing is recorded. */
export interface TurnObservation {
  /** Runs the executor inside the turn's span: its own spans and outbound calls are the turn's children. */
  run<T>(fn: () => T): T;
  /** The executor threw (its class is recorded, never its message). */
  threw(error: unknown): void;
  end(state: TurnEnd): void;
}

/** What an observation reads of its turn: the ids for a span only (a Message answer's task id is never drawn otherwise), and its start. */
export interface ObservedTurn {
  readonly taskId: string;
  readonly contextId: string;
  /** `performance.now()` when the turn started. */
  readonly startedAt: number;
}

export function observeTurn(agent: string, turn: ObservedTurn): TurnObservation | undefined {
  if (tracing() === undefined) {
    const meters = instruments();
    return meters === undefined ? undefined : new TurnMeter(agent, meters, turn.startedAt);
  }
  // traced: the observation finds the meters itself
  const observation = new Observation(SPAN.turn, SpanKind.INTERNAL, () => ({ [ATTR.agent]: agent, [ATTR.taskId]: turn.taskId, [ATTR.contextId]: turn.contextId }));
  return new TracedTurn(observation, agent);
}

/**
 * Metrics without traces: the turn's duration, nothing else. A turn is the one piece of a Message
 * answer observed twice (with its request), so it is kept to what its metric needs: the turn's own
 * start, and the clock read at the end only for a turn that gets a point.
 */
class TurnMeter implements TurnObservation {
  private thrown: string | undefined;

  constructor(
    private readonly agent: string,
    private readonly meters: A2AInstruments,
    private readonly startedAt: number,
  ) {}

  run<T>(fn: () => T): T {
    return fn();
  }

  threw(error: unknown): void {
    this.thrown = errorType(error);
  }

  end(state: TurnEnd): void {
    if (hasPoint(state, this.thrown)) recordTurn(this.meters, this.agent, state, this.thrown, (performance.now() - this.startedAt) / 1000);
  }
}

class TracedTurn implements TurnObservation {
  private thrown: string | undefined;

  constructor(
    private readonly observation: Observation,
    private readonly agent: string,
  ) {}

  run<T>(fn: () => T): T {
    return this.observation.run(fn);
  }

  threw(error: unknown): void {
    this.thrown = this.observation.fail(error);
  }

  end(state: TurnEnd): void {
    const observation = this.observation;
    observation.set(ATTR.taskState, state);
    if (!observation.end() || observation.meters === undefined || !hasPoint(state, this.thrown)) return;
    recordTurn(observation.meters, this.agent, state, this.thrown, observation.seconds);
  }
}

/**
 * Does the turn get an `a2a.turn.duration` point? Not one that answered with a Message: it is its
 * request, whose `rpc.server.call.duration` differs from it by microseconds (the buckets start at
 * 5 ms), and a point costs the SDK microseconds of CPU and ~1 KB of garbage.
 */
function hasPoint(state: TurnEnd, thrown: string | undefined): boolean {
  return state !== 'replied' || thrown !== undefined;
}

/** `a2a.turn.duration`, and the task it finished. */
function recordTurn(meters: A2AInstruments, agent: string, state: TurnEnd, thrown: string | undefined, seconds: number): void {
  const attributes = thrown === undefined ? { [ATTR.agent]: agent, [ATTR.taskState]: state ?? 'none' } : { [ATTR.agent]: agent, [ATTR.taskState]: state ?? 'none', [ATTR.errorType]: thrown };
  meters.turnDuration.record(seconds, attributes);
  if (state !== undefined && state !== 'replied') recordTaskFinished(agent, state);
}

/** Counts a task of `agent` that reached `state`, when it is final. */
export function recordTaskFinished(agent: string, state: TaskState): void {
  if (!isTerminalState(state)) return;
  // the state is a TaskState name, with no line break: the agent's name after it may hold any character
  instruments()?.tasksFinished.add(`${state}\n${agent}`, () => ({ [ATTR.agent]: agent, [ATTR.taskState]: state }));
}
