/**
 * One method per A2A operation, shared by every binding. Knows no `req`/`res`: a binding decodes
 * the request into params and an {@link A2ACall}, and encodes what comes back.
 */
import { Inject, Injectable } from '@nestjs/common';
import { mediaTypeAccepted } from '../protocol/agent-card.js';
import { decode, encode, type DecodeOptions } from '../protocol/codec.js';
import {
  ContentTypeNotSupportedError,
  InvalidParamsError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
  echoed,
} from '../protocol/errors.js';
import { OPERATIONS, type A2AOperation } from '../protocol/operations.js';
import {
  LIST_TASKS_DEFAULT_PAGE_SIZE,
  ListTasksResponseSchema,
  StreamResponseSchema,
} from '../protocol/schemas.js';
import { taskView } from '../protocol/task-view.js';
import {
  isTerminalState,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetTaskPushNotificationConfigRequest,
  type ListTaskPushNotificationConfigsRequest,
  type TaskPushNotificationConfig,
  type GetTaskRequest,
  type ListTasksRequest,
  type ListTasksResponse,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
} from '../protocol/types.js';
import type { A2ACaller } from '../tasks/agent-executor.js';
import { TaskManager } from '../tasks/engine/task-manager.js';
import type { Turn } from '../tasks/engine/turn.js';
import type { TaskScope } from '../tasks/task-store.js';
import { PushNotifications } from '../push/push-notifications.js';
import type { Context } from '../telemetry/telemetry-api.js';
import { observeRequest } from '../telemetry/request-telemetry.js';
import { InjectA2AOptions } from '../config/a2a.constants.js';
import { AgentCardService } from './agent-card.service.js';
import type { PublishedAgent } from './agent-registry.js';
import type { ResolvedServerOptions } from './server-options.js';
import { TaskEventStream } from './task-event-stream.js';

/** Everything about a request that is not its params. */
export interface A2ACall {
  readonly agent: PublishedAgent;
  readonly caller: A2ACaller;
  /** Extensions requested and supported: active for this request. */
  readonly extensions: readonly string[];
  /**
   * Fires when the client goes away: streams stop following the task (the task goes on). Read
   * only for a log whose follow does not end on `return()` (`EventLog.followEndsOnReturn`); a
   * binding stops a stream whose client left through the stream's `return()` in any case.
   */
  readonly signal: AbortSignal;
  /** `Last-Event-ID` of a reconnecting stream. */
  readonly lastEventId?: number;
  /** Came through the agent's own paths (`/agents/{name}/…`) rather than the root ones. */
  readonly viaAgentPath: boolean;
  /** The binding the request came through (`JSONRPC`, `HTTP+JSON`), for traces and metrics; absent in process. */
  readonly binding?: string;
  /**
   * The protocol version the request was made in (`Major.Minor`: `1.0`, `0.3`): push configs
   * registered by it are sent notifications in that version's shape; traces and metrics record it.
   */
  readonly protocolVersion?: string;
  /** The parent of the operation's span: the inbound request's trace context (see `inboundContext`). */
  readonly traceContext?: Context;
}

/** One event of a stream; `seq` is its place in the task's log (absent for a Message answer). */
export interface StreamEvent {
  readonly seq?: number;
  readonly event: StreamResponse;
}

/** An operation's outcome, encoded as ProtoJSON, ready for any binding. */
export type DispatchResult = { readonly result: unknown } | { readonly stream: AsyncIterable<StreamEvent> };

/** An operation's outcome with its result as the 1.0 value (the operation's response type), for a binding to encode. */
export type RunResult = DispatchResult;

@Injectable()
export class A2ARequestHandler {
  constructor(
    @Inject(TaskManager) private readonly tasks: TaskManager,
    @Inject(AgentCardService) private readonly cards: AgentCardService,
    @Inject(PushNotifications) private readonly push: PushNotifications,
    @InjectA2AOptions() private readonly options: ResolvedServerOptions,
  ) {}

  /**
   * Decodes `params` (ProtoJSON) for `operation`, runs it, and encodes the result as ProtoJSON.
   * @throws A2AError (InvalidParamsError naming each bad field, and each operation's own errors)
   */
  dispatch(call: A2ACall, operation: A2AOperation, params: unknown): Promise<DispatchResult> {
    return observeRequest(call, operation, () => this.decodeAndExecute(call, operation, params));
  }

  /**
   * Runs `operation` on the 1.0 request `readRequest` makes (a binding's decoder, bounded by the
   * `limits` it is given), answering the 1.0 value: for bindings whose wire is not ProtoJSON.
   * Capability checks come first: an unsupported operation is refused whatever its params.
   * @throws A2AError (what `readRequest` throws, and each operation's own errors)
   */
  run(call: A2ACall, operation: A2AOperation, readRequest: (options: DecodeOptions) => unknown): Promise<RunResult> {
    return observeRequest(call, operation, () => this.execute(call, operation, readRequest));
  }

  private async decodeAndExecute(call: A2ACall, operation: A2AOperation, params: unknown): Promise<DispatchResult> {
    const spec = OPERATIONS[operation];
    let request: unknown; // kept: how a ListTasks answer is encoded depends on its request
    const outcome = await this.execute(call, operation, (options) => (request = decode(spec.request, params, '', options)));
    if ('stream' in outcome) return outcome;
    return { result: operation === 'ListTasks' ? this.encodeList(outcome.result as ListTasksResponse, request as ListTasksRequest) : encode(spec.response, outcome.result) };
  }

  private async execute(call: A2ACall, operation: A2AOperation, readRequest: (options: DecodeOptions) => unknown): Promise<RunResult> {
    if (operation.endsWith('PushNotificationConfig') || operation.endsWith('PushNotificationConfigs')) {
      if (!this.push.enabled) throw new PushNotificationNotSupportedError();
    }
    // bounded while decoding: lists are counted before they are walked (limits.*)
    const request = readRequest({ limits: this.options.limits });
    switch (operation) {
      case 'SendMessage':
        return { result: await this.sendMessage(call, request as SendMessageRequest) };
      case 'SendStreamingMessage':
        return { stream: await this.sendStreamingMessage(call, request as SendMessageRequest) };
      case 'GetTask':
        return { result: await this.getTask(call, request as GetTaskRequest) };
      case 'ListTasks':
        return { result: await this.listTasks(call, request as ListTasksRequest) };
      case 'CancelTask':
        return { result: await this.cancelTask(call, request as CancelTaskRequest) };
      case 'SubscribeToTask':
        return { stream: await this.subscribeToTask(call, request as SubscribeToTaskRequest) };
      case 'GetExtendedAgentCard':
        return { result: await this.cards.extended(call.agent, call.viaAgentPath, call.caller) };
      case 'CreateTaskPushNotificationConfig': {
        const config = request as TaskPushNotificationConfig;
        if (!config.taskId) throw InvalidParamsError.field('taskId', 'is required');
        const scope = await this.ownTask(call, config.taskId);
        await this.push.validate(config);
        return { result: await this.push.create(scope, config.taskId, config, { protocolVersion: call.protocolVersion }) };
      }
      case 'GetTaskPushNotificationConfig': {
        const { taskId, id } = request as GetTaskPushNotificationConfigRequest;
        const scope = await this.ownTask(call, taskId);
        return { result: await this.push.get(scope, taskId, id) };
      }
      case 'ListTaskPushNotificationConfigs': {
        const { taskId, pageSize, pageToken } = request as ListTaskPushNotificationConfigsRequest;
        const scope = await this.ownTask(call, taskId);
        return { result: await this.push.list(scope, taskId, pageSize, pageToken) };
      }
      case 'DeleteTaskPushNotificationConfig': {
        const { taskId, id } = request as DeleteTaskPushNotificationConfigRequest;
        const scope = await this.ownTask(call, taskId);
        await this.push.delete(scope, taskId, id);
        return { result: {} };
      }
    }
  }

  async sendMessage(call: A2ACall, request: SendMessageRequest): Promise<SendMessageResponse> {
    const turn = await this.startTurn(call, request);
    // an executor that answers at once has answered by now: no promise and turn of waiting for it
    const start = turn.startedNow() ?? (await turn.started);
    if ('message' in start) return { message: start.message };
    let task = start.task; // returnImmediately: the task as it was created
    if (!request.configuration?.returnImmediately) {
      await turn.settled;
      task = turn.latest() ?? (await this.tasks.get(this.scope(call), start.taskId)).task;
    }
    return { task: taskView(task, { historyLength: request.configuration?.historyLength }) };
  }

  /** Starts the turn; resolves with its stream once it has begun (what fails before that is an ordinary error answer). */
  async sendStreamingMessage(call: A2ACall, request: SendMessageRequest): Promise<AsyncIterable<StreamEvent>> {
    const turn = await this.startTurn(call, request);
    const start = turn.startedNow() ?? (await turn.started);
    if ('message' in start) return streamOf([{ event: { message: start.message } }]);
    return this.follow(call, start.taskId, start.seq - 1, false, request.configuration?.historyLength);
  }

  async getTask(call: A2ACall, request: GetTaskRequest): Promise<Task> {
    const stored = await this.tasks.get(this.scope(call), request.id);
    return taskView(stored.task, { historyLength: request.historyLength });
  }

  async listTasks(call: A2ACall, request: ListTasksRequest): Promise<ListTasksResponse> {
    const pageSize = request.pageSize ?? LIST_TASKS_DEFAULT_PAGE_SIZE;
    const page = await this.tasks.list(this.scope(call), {
      contextId: request.contextId,
      status: request.status === 'TASK_STATE_UNSPECIFIED' ? undefined : request.status,
      statusTimestampAfter: request.statusTimestampAfter,
      pageSize,
      pageToken: request.pageToken,
    });
    const view = { historyLength: request.historyLength, includeArtifacts: request.includeArtifacts === true };
    return { tasks: page.tasks.map((t) => taskView(t, view)), nextPageToken: page.nextPageToken, pageSize, totalSize: page.totalSize };
  }

  cancelTask(call: A2ACall, request: CancelTaskRequest): Promise<Task> {
    return this.tasks.cancel(this.scope(call), request.id);
  }

  /**
   * Without `Last-Event-ID`: the Task snapshot first, then its updates. With it: exactly the
   * events after that sequence number (a reconnect), even when the task has finished since.
   * Resolves once the request is known to be good, so the stream opens before its next event,
   * however far off that is.
   */
  async subscribeToTask(call: A2ACall, request: SubscribeToTaskRequest): Promise<AsyncIterable<StreamEvent>> {
    const stored = await this.tasks.get(this.scope(call), request.id);
    const terminal = isTerminalState(stored.task.status.state);
    if (call.lastEventId !== undefined) {
      return terminal && call.lastEventId >= stored.seq ? streamOf([]) : this.follow(call, request.id, call.lastEventId, false);
    }
    if (terminal) {
      throw new UnsupportedOperationError(`Task ${echoed(request.id)} is ${stored.task.status.state}; a finished task cannot be subscribed to`, {
        taskId: echoed(request.id),
      });
    }
    return this.follow(call, request.id, stored.seq, true, undefined, { seq: stored.seq, event: { task: taskView(stored.task) } });
  }

  /** ProtoJSON of a ListTasks answer: with `includeArtifacts`, every task carries `artifacts` (maybe `[]`). */
  private encodeList(response: ListTasksResponse, request: ListTasksRequest): unknown {
    const encoded = encode(ListTasksResponseSchema, response) as { tasks: Array<Record<string, unknown>> };
    if (request.includeArtifacts) encoded.tasks.forEach((t) => (t.artifacts ??= []));
    return encoded;
  }

  /**
   * Starts the message's turn. Not an async function: a message without an inline push config
   * (most) gets the task manager's own promise, not one more around it and the turns it costs to
   * follow one. Called only with `await` from async functions: what it throws is their rejection.
   */
  private startTurn(call: A2ACall, request: SendMessageRequest): Promise<Turn> {
    const inline = request.configuration?.taskPushNotificationConfig;
    if (!inline) return this.sendTurn(call, request, undefined);
    if (!this.push.enabled) {
      throw new PushNotificationNotSupportedError('Push notifications are not supported by this agent (configuration.taskPushNotificationConfig)');
    }
    return this.push.validate(inline, 'configuration.taskPushNotificationConfig.url').then(() => this.sendTurn(call, request, inline));
  }

  private sendTurn(call: A2ACall, request: SendMessageRequest, inline: TaskPushNotificationConfig | undefined): Promise<Turn> {
    const refused = request.message.parts.find((p) => p.mediaType !== undefined && !mediaTypeAccepted(p.mediaType, call.agent.inputModes));
    if (refused) {
      throw new ContentTypeNotSupportedError(`This agent does not take ${echoed(refused.mediaType!)}; it takes ${call.agent.inputModes.join(', ')}`, {
        mediaType: echoed(refused.mediaType!),
      });
    }
    const scope = this.scope(call);
    return this.tasks.send({
      agent: call.agent,
      scope,
      request,
      caller: call.caller,
      extensions: call.extensions,
      // an inline config hears the task from its first event on (a continued task's: from its next)
      beforeOpen: inline ? async (taskId, isNew) => void (await this.push.create(scope, taskId, inline, { protocolVersion: call.protocolVersion, newTask: isNew })) : undefined,
    });
  }

  /**
   * A task's log as a stream ({@link TaskEventStream}); it holds neither the call nor, where the
   * log's follow ends on `return()`, its signal: the binding stops the stream through `return()`.
   */
  private follow(call: A2ACall, taskId: string, afterSeq: number, started: boolean, historyLength?: number, first?: StreamEvent): AsyncIterable<StreamEvent> {
    const log = this.tasks.follow(taskId, afterSeq, () => call.signal);
    return new TaskEventStream(log[Symbol.asyncIterator](), started, historyLength, first);
  }

  /** Scoping comes from the caller alone (its tenant included), before any data is read. */
  /** The caller's scope, once `taskId` is known to be a task of it (TaskNotFoundError otherwise): push configs hang off the caller's own tasks. */
  private async ownTask(call: A2ACall, taskId: string): Promise<TaskScope> {
    const scope = this.scope(call);
    await this.tasks.get(scope, taskId);
    return scope;
  }

  private scope(call: A2ACall): TaskScope {
    return { agent: call.agent.name, tenant: call.caller.tenant ?? '', subject: call.caller.subject };
  }
}

/** A stream of `events` only. */
async function* streamOf<T>(events: readonly T[]): AsyncIterable<T> {
  yield* events;
}

/** ProtoJSON of one stream event. */
export function encodeStreamEvent(event: StreamResponse): unknown {
  return encode(StreamResponseSchema, event);
}
