/** The executor's view of one turn: the incoming message, the task, the caller, and the helpers that move the task. */
import { withFields } from '../protocol/json-value.js';
import type { Artifact, JsonObject, Message, Part, SendMessageConfiguration, Task, TaskState } from '../protocol/types.js';
import type { A2ACaller } from './a2a-caller.js';
import type { AgentTool } from './agent-tool.js';
import type { Conversation, ConversationOptions } from './conversation.js';
import { dataPart } from './parts.js';
import type { ToolCallEvent, ToolCallEvents } from './tool-call-events.js';

/** A message for a status or a reply: plain text, parts, or parts with message fields. @publicApi */
export type MessageInput = string | Part[] | (Pick<Message, 'parts'> & Partial<Pick<Message, 'metadata' | 'extensions' | 'referenceTaskIds'>>);

/** @internal */
export interface TaskContextInit {
  readonly contextId: string;
  readonly message: Message;
  readonly task?: Task;
  readonly caller: A2ACaller;
  /** The signal, or what makes it when first read (node's AbortSignal is costly to make, and most executors never read it). */
  readonly signal: AbortSignal | (() => AbortSignal);
  readonly extensions: readonly string[];
  readonly configuration?: SendMessageConfiguration;
  readonly metadata?: JsonObject;
  readonly newId: () => string;
  readonly now: () => number;
  /** The published agent's name (for tool call events). */
  readonly agent: string;
  readonly conversation: (options?: ConversationOptions) => Promise<Conversation>;
  readonly toolEvents?: ToolCallEvents;
  /** Runs a tool call's `invoke` (the engine observes it: a span per call); called as it is when absent. */
  readonly observeTool?: <T>(tool: string, step: number, invoke: () => Promise<T>) => Promise<T>;
  /** The turn this context belongs to (the engine's `Turn`): each helper's event goes to it, in call order. */
  readonly turn: {
    /** Its task's id (a new task's is drawn when first read). */
    readonly taskId: string;
    reply(message: Message): Promise<void>;
    status(state: TaskState, message?: Message): Promise<void>;
    artifact(artifact: Artifact, append: boolean, lastChunk: boolean): Promise<void>;
    /** Resolves once every event so far is stored. */
    flushed(): Promise<void>;
  };
}

/** Which tool step an exception came out of (`runTool` marks it): the failure the task ends with names the step. */
const failedSteps = new WeakMap<object, { readonly step: number; readonly steps?: number }>();

/** @internal The step `error` was thrown from, if `runTool` saw it. */
export function failedStepOf(error: unknown): { readonly step: number; readonly steps?: number } | undefined {
  return typeof error === 'object' && error !== null ? failedSteps.get(error) : undefined;
}

/** Options of a whole artifact made by a helper (`addData`). @publicApi */
export interface ArtifactOptions {
  artifactId?: string;
  name?: string;
  description?: string;
  metadata?: JsonObject;
}

/** Options of a streamed artifact chunk. @publicApi */
export interface ArtifactChunkOptions {
  /** Which artifact the chunk belongs to; one default artifact per turn when omitted. */
  artifactId?: string;
  name?: string;
  description?: string;
  /** This is the artifact's last chunk. */
  lastChunk?: boolean;
}

/**
 * Handed to {@link AgentExecutor.execute}. Events go to the task's log in the order the helpers
 * are called. A helper returns once its event is on its way (the events of one turn of the event
 * loop are stored together, in one write); one that settles the turn (complete, fail, reject,
 * inputRequired, authRequired) returns once it is stored. `flushed()` waits for everything so far.
 * @publicApi
 */
export class TaskContext<User = unknown> {
  /** The task this turn works on; its id exists before the task is first stored. */
  get taskId(): string {
    return this.turn.taskId;
  }
  readonly contextId: string;
  /** The incoming message. */
  readonly message: Message;
  /** The task as it stood before this message (a continuation), or undefined for a new task. */
  readonly task: Task | undefined;
  /** Who is calling, as your authentication established it; `TaskContext<MyUser>` types `caller.user`. */
  readonly caller: A2ACaller<User>;
  /** Fires when the task is canceled or the executor deadline passes. */
  get signal(): AbortSignal {
    const signal = this.init.signal;
    return typeof signal === 'function' ? signal() : signal;
  }
  /** Extensions the client requested that the agent declares: active for this request. */
  readonly extensions: readonly string[];
  /** The request's configuration (`acceptedOutputModes`, …). */
  readonly configuration: SendMessageConfiguration | undefined;
  /** The request's metadata. */
  readonly metadata: JsonObject | undefined;

  private readonly turn: TaskContextInit['turn'];
  private readonly init: TaskContextInit;
  private readonly newId: () => string;
  /** The artifact `appendText`/`appendParts` stream into when given none; drawn when first needed (most turns never stream). */
  private defaultArtifact?: string;
  /** Streamed artifacts that have had a first chunk and no last chunk yet (made at the first chunk: most turns stream none). */
  private openArtifacts?: Set<string>;
  private steps = 0;
  private plannedSteps: number | undefined;

  constructor(init: TaskContextInit) {
    this.contextId = init.contextId;
    this.message = init.message;
    this.task = init.task;
    this.caller = init.caller as A2ACaller<User>;
    this.init = init;
    this.extensions = init.extensions;
    this.configuration = init.configuration;
    this.metadata = init.metadata;
    this.turn = init.turn;
    this.newId = init.newId;
  }

  /** The text parts of the incoming message, joined by newlines. */
  get text(): string {
    let text: string | undefined;
    for (const part of this.message.parts) {
      if (part.text !== undefined) text = text === undefined ? part.text : `${text}\n${part.text}`;
    }
    return text ?? '';
  }

  /** Answers with a Message and no task. Only as the first thing a new turn does. */
  reply(message: MessageInput): Promise<void> {
    return this.turn.reply(this.toMessage(message, undefined));
  }

  /** Creates the task in SUBMITTED (the other helpers create it implicitly). */
  submit(message?: MessageInput): Promise<void> {
    return this.setStatus('TASK_STATE_SUBMITTED', message);
  }

  working(message?: MessageInput): Promise<void> {
    return this.setStatus('TASK_STATE_WORKING', message);
  }

  /** COMPLETED. Closes any streamed artifact still open with its last chunk first. */
  async complete(message?: MessageInput): Promise<void> {
    if (this.openArtifacts?.size) await this.closeOpenArtifacts();
    return this.setStatus('TASK_STATE_COMPLETED', message);
  }

  fail(message?: MessageInput): Promise<void> {
    return this.setStatus('TASK_STATE_FAILED', message);
  }

  reject(message?: MessageInput): Promise<void> {
    return this.setStatus('TASK_STATE_REJECTED', message);
  }

  /** INPUT_REQUIRED: the next message on this task continues it. */
  inputRequired(message: MessageInput): Promise<void> {
    return this.setStatus('TASK_STATE_INPUT_REQUIRED', message);
  }

  /** AUTH_REQUIRED, with the status message the spec demands saying what is needed. */
  authRequired(message: MessageInput): Promise<void> {
    return this.setStatus('TASK_STATE_AUTH_REQUIRED', message);
  }

  /** A whole artifact in one event (replacing one with the same id). */
  addArtifact(artifact: Omit<Artifact, 'artifactId'> & { artifactId?: string }): Promise<void> {
    return this.turn.artifact(withFields(artifact, { artifactId: artifact.artifactId ?? this.newId() }), false, false);
  }

  /** Streams text into an artifact: the first chunk creates it, later chunks append. */
  appendText(text: string, options: ArtifactChunkOptions = {}): Promise<void> {
    return this.appendParts([{ text }], options);
  }

  /** Streams parts into an artifact: the first chunk creates it, later chunks append. */
  appendParts(parts: Part[], options: ArtifactChunkOptions = {}): Promise<void> {
    const artifactId = options.artifactId ?? (this.defaultArtifact ??= this.newId());
    const open = (this.openArtifacts ??= new Set());
    const append = open.has(artifactId);
    if (options.lastChunk) open.delete(artifactId);
    else open.add(artifactId);
    const artifact: Artifact = { artifactId, name: options.name, description: options.description, parts };
    return this.turn.artifact(artifact, append, options.lastChunk === true);
  }

  /**
   * Announces how many tool steps this turn will run: their progress then reads `step 2/3`.
   * Call it before the first `runTool`.
   */
  expectSteps(total: number): void {
    this.plannedSteps = Number.isInteger(total) && total > 0 ? total : undefined;
  }

  /**
   * Runs a tool as an opaque WORKING step: the wire (streams, push notifications, the task's
   * history) shows `step 2` or `step 2/3` and nothing of the tool, its arguments or its result.
   * The step is stored before the tool starts, so a long call shows as progress; the tool gets this
   * turn's signal and caller. Its name, timing and outcome go to {@link ToolCallEvents} listeners;
   * an exception it throws that ends the task fails it saying which step failed.
   */
  async runTool<Args, Result>(tool: AgentTool<Args, Result>, args: Args): Promise<Result> {
    const step = ++this.steps;
    const steps = this.plannedSteps;
    await this.working(steps === undefined ? `step ${step}` : `step ${step}/${steps}`);
    await this.turn.flushed();
    const startedAt = this.init.now();
    const told = { agent: this.init.agent, taskId: this.taskId, contextId: this.contextId, caller: this.caller, tool: tool.name, step, steps, startedAt };
    const tell = (event: ToolCallEvent) => this.init.toolEvents?.emit(event);
    tell({ ...told, phase: 'started' });
    try {
      const invoke = () => tool.invoke(args, { signal: this.signal, caller: this.caller });
      const result = await (this.init.observeTool === undefined ? invoke() : this.init.observeTool(tool.name, step, invoke));
      tell({ ...told, phase: 'finished', durationMs: this.init.now() - startedAt, outcome: 'succeeded' });
      return result;
    } catch (error) {
      tell({ ...told, phase: 'finished', durationMs: this.init.now() - startedAt, outcome: 'failed', error });
      if (typeof error === 'object' && error !== null && !failedSteps.has(error)) failedSteps.set(error, steps === undefined ? { step } : { step, steps });
      throw error;
    }
  }

  /**
   * The earlier turns of this conversation (this `contextId`, this caller only): the messages and
   * artifacts of its tasks, newest last, at most `maxTurns` of them (20). A Message answer
   * (`reply`) makes no task, so it is not among them; finished tasks leave with their retention.
   */
  conversation(options?: ConversationOptions): Promise<Conversation> {
    return this.init.conversation(options);
  }

  /** Is extension `uri` active for this request (requested by the client and declared by the agent)? */
  hasExtension(uri: string): boolean {
    return this.extensions.includes(uri);
  }

  /** Structured output: a whole artifact holding one data part. */
  addData(data: JsonObject, options: ArtifactOptions = {}): Promise<void> {
    return this.addArtifact({ ...options, parts: [dataPart(data)] });
  }

  /**
   * Streams an artifact from text chunks (a model's tokens, say) as they come, then closes it with
   * its last chunk; stops early, leaving it open, once the task is canceled or times out.
   */
  async streamText(chunks: AsyncIterable<string> | Iterable<string>, options: Omit<ArtifactChunkOptions, 'lastChunk'> = {}): Promise<void> {
    const chunk = { artifactId: options.artifactId ?? this.newId(), name: options.name, description: options.description };
    for await (const text of chunks) {
      if (this.signal.aborted) return;
      await this.appendText(text, chunk);
    }
    await this.appendParts([{ text: '' }], { ...chunk, lastChunk: true });
  }

  /** Resolves once every event of this turn so far is stored in the task's log. */
  flushed(): Promise<void> {
    return this.turn.flushed();
  }

  private async closeOpenArtifacts(): Promise<void> {
    for (const artifactId of [...(this.openArtifacts ?? [])]) {
      // a last chunk needs a part; an empty text part adds nothing to the artifact
      await this.appendParts([{ text: '' }], { artifactId, lastChunk: true });
    }
  }

  private setStatus(state: TaskState, message?: MessageInput): Promise<void> {
    return this.turn.status(state, message === undefined ? undefined : this.toMessage(message, this.taskId));
  }

  /** An agent message of this turn; `taskId` undefined for a reply, which makes no task. */
  private toMessage(input: MessageInput, taskId: string | undefined): Message {
    const messageId = this.newId();
    // a literal for text and parts: spreading a fresh object costs more than the rest of a reply
    if (typeof input === 'string') return { parts: [{ text: input }], messageId, role: 'ROLE_AGENT', contextId: this.contextId, taskId };
    if (Array.isArray(input)) return { parts: input, messageId, role: 'ROLE_AGENT', contextId: this.contextId, taskId };
    return withFields(input, { messageId, role: 'ROLE_AGENT' as const, contextId: this.contextId, taskId });
  }
}
