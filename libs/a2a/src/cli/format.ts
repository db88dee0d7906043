/** Readable output of the command-line client: what a person wants to see of each answer. */
import type { PeerToolSpec } from '../client/peers/peer-tool-specs.js';
import type { AgentCard, Artifact, ListTasksResponse, Message, Part, SecurityScheme, SendMessageResponse, StreamResponse, Task, TaskState } from '../protocol/types.js';

/** `TASK_STATE_COMPLETED` → `COMPLETED`. */
export function shortState(state: TaskState): string {
  return state.replace(/^TASK_STATE_/, '');
}

function partText(part: Part): string {
  if (typeof part.text === 'string') return part.text;
  if (part.data !== undefined) return JSON.stringify(part.data);
  if (part.url !== undefined) return `[file ${part.filename ?? ''} ${part.url}]`.replace('  ', ' ');
  if (part.raw !== undefined) return `[file ${part.filename ?? '(raw)'}, ${part.mediaType ?? 'application/octet-stream'}, ${Buffer.from(part.raw, 'base64').length} bytes]`;
  return '[empty part]';
}

function partsText(parts: readonly Part[]): string {
  return parts.map(partText).join('');
}

function role(message: Message): string {
  return message.role === 'ROLE_AGENT' ? 'agent' : message.role === 'ROLE_USER' ? 'user' : 'message';
}

function artifactLine(artifact: Artifact): string {
  return `  artifact${artifact.name === undefined ? '' : ` "${artifact.name}"`}: ${partsText(artifact.parts)}`;
}

export function formatMessage(message: Message): string {
  return `${role(message)}: ${partsText(message.parts)}`;
}

export function formatTask(task: Task): string {
  const lines = [`task ${task.id}  ${shortState(task.status.state)}${task.contextId === undefined ? '' : `  (context ${task.contextId})`}`];
  if (task.status.message !== undefined) lines.push(`  status: ${partsText(task.status.message.parts)}`);
  for (const artifact of task.artifacts ?? []) lines.push(artifactLine(artifact));
  return lines.join('\n');
}

export function formatResponse(response: SendMessageResponse): string {
  return 'task' in response ? formatTask(response.task) : formatMessage(response.message);
}

/** One stream event on one line, prefixed by its SSE id when the server numbers events. */
export function formatEvent(event: StreamResponse, id: string | undefined): string {
  const prefix = id === undefined ? '' : `#${id} `;
  if ('task' in event) return `${prefix}task      ${shortState(event.task.status.state)}  ${event.task.id}`;
  if ('message' in event) return `${prefix}message   ${formatMessage(event.message)}`;
  if ('statusUpdate' in event) {
    const { status } = event.statusUpdate;
    return `${prefix}status    ${shortState(status.state)}${status.message === undefined ? '' : `  ${partsText(status.message.parts)}`}`;
  }
  const { artifact, append, lastChunk } = event.artifactUpdate;
  const marks = [append ? 'append' : '', lastChunk ? 'last chunk' : ''].filter((m) => m !== '').join(', ');
  return `${prefix}artifact  ${partsText(artifact.parts)}${marks === '' ? '' : `  (${marks})`}`;
}

export function formatTaskList(list: ListTasksResponse): string {
  const lines = list.tasks.map((t) => `${t.id}  ${shortState(t.status.state)}  ${t.status.timestamp ?? ''}${t.contextId === undefined ? '' : `  context ${t.contextId}`}`);
  lines.push(`(${list.tasks.length} of ${list.totalSize} tasks)${list.nextPageToken ? `  next page: --page-token ${list.nextPageToken}` : ''}`);
  return lines.join('\n');
}

function schemeText(name: string, scheme: SecurityScheme): string {
  if (scheme.apiKeySecurityScheme) return `${name}: API key in ${scheme.apiKeySecurityScheme.location} "${scheme.apiKeySecurityScheme.name}"`;
  if (scheme.httpAuthSecurityScheme) return `${name}: HTTP ${scheme.httpAuthSecurityScheme.scheme}`;
  if (scheme.oauth2SecurityScheme) return `${name}: OAuth 2.0`;
  if (scheme.openIdConnectSecurityScheme) return `${name}: OpenID Connect`;
  if (scheme.mtlsSecurityScheme) return `${name}: mutual TLS`;
  return name;
}

export function formatCard(card: AgentCard): string {
  const caps = card.capabilities;
  const lines = [
    `${card.name}  (version ${card.version})`,
    card.description,
    ...(card.provider ? [`provider: ${card.provider.organization} (${card.provider.url})`] : []),
    'interfaces:',
    ...card.supportedInterfaces.map((i) => `  ${i.protocolBinding.padEnd(10)} ${i.protocolVersion.padEnd(4)} ${i.url}${i.tenant ? `  (tenant ${i.tenant})` : ''}`),
    `capabilities: streaming ${caps.streaming ? 'yes' : 'no'}, push notifications ${caps.pushNotifications ? 'yes' : 'no'}, extended card ${caps.extendedAgentCard ? 'yes' : 'no'}`,
    `input: ${card.defaultInputModes.join(', ')}; output: ${card.defaultOutputModes.join(', ')}`,
    `security: ${Object.entries(card.securitySchemes ?? {}).map(([n, s]) => schemeText(n, s)).join('; ') || 'none declared'}`,
    `signed: ${card.signatures && card.signatures.length > 0 ? `yes (${card.signatures.length} signature${card.signatures.length > 1 ? 's' : ''})` : 'no'}`,
    'skills:',
    ...card.skills.flatMap((s) => [`  ${s.id}  ${s.name}: ${s.description}`, ...(s.examples && s.examples.length > 0 ? [`      examples: ${s.examples.join(' | ')}`] : [])]),
  ];
  return lines.join('\n');
}

export function formatTools(specs: readonly PeerToolSpec[]): string {
  if (specs.length === 0) return '(no tools: no skill matches --allow)';
  return specs
    .map((spec) => {
      const schema = spec.inputSchema as { properties?: Record<string, { type?: string }>; required?: string[] };
      const inputs = Object.entries(schema.properties ?? {}).map(([name, p]) => `${name} (${p.type ?? 'any'}${schema.required?.includes(name) ? ', required' : ''})`);
      return [spec.name, `  ${spec.description}`, `  input: ${inputs.join(', ')}`].join('\n');
    })
    .join('\n');
}
