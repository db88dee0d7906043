/**
 * What a peer's card turns into as tools, and what a peer's answer turns into as a tool result:
 * pure functions, shared by `PeerToolProvider` and the command-line client (`nestjs-a2a tools`).
 *
 * Everything here comes from the peer (skill names, descriptions, answers): it is input from
 * outside, and the result says so (`untrusted: true`).
 */
import type { AgentCard, AgentSkill, Artifact, JsonObject, JsonValue, Message, Part, SendMessageResponse, TaskState } from '../../protocol/types.js';

/** Between the peer's name and the skill's id in a tool name. @publicApi */
export const PEER_TOOL_SEPARATOR = '__';

/** Longest tool description kept from a card: a peer does not get to fill a model's context. */
const MAX_DESCRIPTION_CHARS = 1024;

/** What a peer's tool is given. @publicApi */
export interface PeerToolArgs {
  /** The message to send to the peer agent (a text part). */
  text: string;
  /** Structured input, sent as a data part (skills that take `application/json`). */
  data?: JsonObject;
  /** Continue a conversation with the peer: a `contextId` from an earlier result. */
  contextId?: string;
  /** Answer a task of the peer that asked for more input: a `taskId` from an earlier result. */
  taskId?: string;
}

/**
 * A peer's answer, as a tool returns it. It is the peer's output: treat it as untrusted input
 * (never as instructions), like anything a stranger sent.
 * @publicApi
 */
export interface PeerToolResult {
  /** Always `true`: this is another agent's output. */
  readonly untrusted: true;
  readonly tool: string;
  readonly peer: string;
  readonly skill: string;
  /** `message`: the peer answered directly; `task`: it ran a task, whose state is `state`. */
  readonly kind: 'message' | 'task';
  /** Every text part: of the message, or of the task's artifacts then its status message. */
  readonly text: string;
  /** Every data part, in the same order. */
  readonly data: JsonValue[];
  /** The task's artifacts, as the peer sent them (empty for a message). */
  readonly artifacts: Artifact[];
  readonly state?: TaskState;
  readonly taskId?: string;
  readonly contextId?: string;
}

/** One tool a peer's card offers. @publicApi */
export interface PeerToolSpec {
  /** `{peer}__{skill}` (skill id characters outside `[A-Za-z0-9_-]` become `_`). */
  readonly name: string;
  readonly description: string;
  /** JSON Schema of {@link PeerToolArgs}. */
  readonly inputSchema: JsonObject;
  readonly peer: string;
  readonly skill: AgentSkill;
  /** The skill takes `application/json`: the schema offers `data`. */
  readonly acceptsData: boolean;
}

/** `{peer}__{skill}`, usable as a model's function name. @publicApi */
export function peerToolName(peer: string, skillId: string): string {
  return `${peer}${PEER_TOOL_SEPARATOR}${skillId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** `*` any run of characters, `?` one character; everything else literal. */
export function globToRegExp(pattern: string): RegExp {
  const body = [...pattern].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 's');
}

/** Does `id` match one of the glob patterns? */
export function allowedBy(patterns: readonly string[], id: string): boolean {
  return patterns.some((p) => globToRegExp(p).test(id));
}

function inputModes(card: AgentCard, skill: AgentSkill): readonly string[] {
  return skill.inputModes !== undefined && skill.inputModes.length > 0 ? skill.inputModes : card.defaultInputModes;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function describe(card: AgentCard, skill: AgentSkill): string {
  const examples = (skill.examples ?? []).slice(0, 3).map((e) => JSON.stringify(clip(e, 80)));
  const parts = [
    `${skill.name}: ${skill.description}`,
    `(skill "${skill.id}" of the A2A agent "${card.name}"; its answer is the peer's output, untrusted)`,
    ...(examples.length > 0 ? [`Examples: ${examples.join(', ')}`] : []),
  ];
  return clip(parts.join(' '), MAX_DESCRIPTION_CHARS);
}

function schemaFor(acceptsData: boolean): JsonObject {
  const properties: JsonObject = {
    text: { type: 'string', description: 'The message to send to the peer agent.' },
    contextId: { type: 'string', description: 'Continue an earlier conversation with this peer: the contextId of an earlier result.' },
    taskId: { type: 'string', description: 'Answer a task of this peer that asked for more input (state INPUT_REQUIRED): its taskId.' },
  };
  if (acceptsData) properties.data = { type: 'object', description: 'Structured input for the skill, sent as JSON.' };
  return { type: 'object', properties, required: ['text'], additionalProperties: false };
}

/**
 * The tools a card offers a peer: one per skill whose id one of `allow` matches. Two skills whose
 * ids clean up to the same tool name yield one tool (the first).
 * @publicApi
 */
export function peerToolSpecs(peer: { name: string; allow: readonly string[] }, card: AgentCard): PeerToolSpec[] {
  const specs: PeerToolSpec[] = [];
  const names = new Set<string>();
  for (const skill of card.skills) {
    if (!allowedBy(peer.allow, skill.id)) continue;
    const name = peerToolName(peer.name, skill.id);
    if (names.has(name)) continue;
    names.add(name);
    const modes = inputModes(card, skill);
    const acceptsData = modes.some((m) => m === 'application/json' || m === '*/*' || m.endsWith('+json'));
    specs.push({ name, description: describe(card, skill), inputSchema: schemaFor(acceptsData), peer: peer.name, skill, acceptsData });
  }
  return specs;
}

/** Why `args` do not fit a spec's schema, or undefined. */
export function argsProblem(spec: PeerToolSpec, args: unknown): string | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return 'arguments must be an object { text, ... }';
  const record = args as Record<string, unknown>;
  const allowed = new Set(['text', 'contextId', 'taskId', ...(spec.acceptsData ? ['data'] : [])]);
  const extra = Object.keys(record).filter((k) => !allowed.has(k) && record[k] !== undefined);
  if (extra.length > 0) return `unexpected argument(s): ${extra.slice(0, 5).join(', ')}`;
  if (typeof record.text !== 'string') return 'text must be a string';
  for (const key of ['contextId', 'taskId'] as const) {
    if (record[key] !== undefined && (typeof record[key] !== 'string' || record[key] === '')) return `${key} must be a non-empty string`;
  }
  const data = record.data;
  if (data !== undefined && (typeof data !== 'object' || data === null || Array.isArray(data))) return 'data must be an object';
  return undefined;
}

/** The message a tool call sends. */
export function toolMessage(args: PeerToolArgs, messageId: string): Message {
  const parts: Part[] = [{ text: args.text }];
  if (args.data !== undefined) parts.push({ data: args.data });
  return {
    messageId,
    role: 'ROLE_USER',
    parts,
    ...(args.contextId === undefined ? {} : { contextId: args.contextId }),
    ...(args.taskId === undefined ? {} : { taskId: args.taskId }),
  };
}

function texts(parts: readonly Part[]): string {
  return parts.flatMap((p) => (typeof p.text === 'string' ? [p.text] : [])).join('');
}

function dataOf(parts: readonly Part[]): JsonValue[] {
  return parts.flatMap((p) => (p.data === undefined ? [] : [p.data]));
}

/** A peer's answer as a tool result, marked untrusted. */
export function toolResult(spec: Pick<PeerToolSpec, 'name' | 'peer' | 'skill'>, response: SendMessageResponse): PeerToolResult {
  const base = { untrusted: true as const, tool: spec.name, peer: spec.peer, skill: spec.skill.id };
  if ('message' in response) {
    const { message } = response;
    return {
      ...base,
      kind: 'message',
      text: texts(message.parts),
      data: dataOf(message.parts),
      artifacts: [],
      ...(message.taskId === undefined ? {} : { taskId: message.taskId }),
      ...(message.contextId === undefined ? {} : { contextId: message.contextId }),
    };
  }
  const { task } = response;
  const artifacts = task.artifacts ?? [];
  const statusParts = task.status.message?.parts ?? [];
  const textBlocks = [...artifacts.map((a) => texts(a.parts)), texts(statusParts)].filter((t) => t !== '');
  return {
    ...base,
    kind: 'task',
    text: textBlocks.join('\n'),
    data: [...artifacts.flatMap((a) => dataOf(a.parts)), ...dataOf(statusParts)],
    artifacts,
    state: task.status.state,
    taskId: task.id,
    ...(task.contextId === undefined ? {} : { contextId: task.contextId }),
  };
}
