/**
 * A2A operations on an app's agents in process, without HTTP: what a binding does once it has
 * decoded a request (the request handler, the task engine, the stores), for tests of an agent and
 * for benchmarks of the engine. Params and results are ProtoJSON, as on the wire.
 */
import type { INestApplicationContext } from '@nestjs/common';
import { OPERATIONS, type A2AOperation } from '../protocol/operations.js';
import { A2ARequestHandler, encodeStreamEvent, type A2ACall } from '../server/a2a-request-handler.js';
import { AgentRegistry } from '../server/agent-registry.js';
import type { A2ACaller } from '../tasks/agent-executor.js';

/** @publicApi */
export interface InProcessA2AOptions {
  /** The agent called. Default: the default agent. */
  readonly agent?: string;
  /** Who calls, as the caller resolver would say after the guards. Default: an anonymous caller. */
  readonly caller?: A2ACaller;
  /** Extensions active for every call. Default none. */
  readonly extensions?: readonly string[];
}

/** One event of a stream, as ProtoJSON, with its sequence number in the task's log (none for a Message answer). @publicApi */
export interface InProcessStreamEvent {
  readonly seq?: number;
  readonly event: unknown;
}

/**
 * `const a2a = InProcessA2A.of(app); await a2a.call('SendMessage', { message })`: the answer as
 * ProtoJSON, or the operation's `A2AError` thrown (`TaskNotFoundError` ...).
 * @publicApi
 */
export class InProcessA2A {
  private constructor(
    private readonly handler: A2ARequestHandler,
    private readonly baseCall: A2ACall,
  ) {}

  /** For an app (or application context) that imports `A2AModule`, once it is initialised. */
  static of(app: INestApplicationContext, options: InProcessA2AOptions = {}): InProcessA2A {
    const agent = app.get(AgentRegistry).resolve(options.agent);
    const caller = options.caller ?? { subject: 'anonymous', authenticated: false };
    // nothing goes away: streams end with their task (or when the caller stops reading)
    const signal = new AbortController().signal;
    return new InProcessA2A(app.get(A2ARequestHandler), { agent, caller, extensions: options.extensions ?? [], signal, viaAgentPath: options.agent !== undefined });
  }

  /**
   * A unary operation (`SendMessage`, `GetTask`, `ListTasks`, `CancelTask`, the push-config ones...);
   * `T` names the shape of its ProtoJSON answer (unchecked).
   * @throws the operation's A2AError
   */
  async call<T = unknown>(operation: A2AOperation, params: unknown): Promise<T> {
    if (OPERATIONS[operation].streaming) throw new TypeError(`${operation} streams: use stream()`);
    const outcome = await this.handler.dispatch(this.baseCall, operation, params);
    return (outcome as { result: T }).result;
  }

  /**
   * A streaming operation (`SendStreamingMessage`, `SubscribeToTask`), once it is accepted: its
   * events until the stream ends (a terminal state, INPUT_REQUIRED).
   * @throws the operation's A2AError, before any event
   */
  async stream(operation: A2AOperation, params: unknown, lastEventId?: number): Promise<AsyncIterable<InProcessStreamEvent>> {
    if (!OPERATIONS[operation].streaming) throw new TypeError(`${operation} does not stream: use call()`);
    const outcome = await this.handler.dispatch({ ...this.baseCall, lastEventId }, operation, params);
    const events = (outcome as { stream: AsyncIterable<{ seq?: number; event: Parameters<typeof encodeStreamEvent>[0] }> }).stream;
    return (async function* () {
      for await (const { seq, event } of events) yield { seq, event: encodeStreamEvent(event) };
    })();
  }
}
