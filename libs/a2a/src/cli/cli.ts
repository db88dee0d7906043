/**
 * `nestjs-a2a <command>`: talk to an A2A agent from a terminal or a script, with the library's own
 * client (card discovery, both bindings, typed errors, the egress policy). Readable output by
 * default, `--json` for scripts. Secrets never go on the command line: `--bearer-env NAME` and
 * `--api-key-env NAME` name the environment variable that holds them.
 *
 * The origin the user typed is trusted (plain http, a local address: a one-line notice says so);
 * every other URL its card names passes the egress policy as `--allow-http`/`--allow-private` say.
 *
 * Exit codes ({@link EXIT_CODES}): 0 done, 1 the call failed (the error's class and message on
 * stderr), 2 usage, 3/4/5 the task ended FAILED/REJECTED/CANCELED.
 */
import { randomUUID } from 'node:crypto';
import { A2AClient, type A2AClientOptions } from '../client/a2a-client.js';
import type { A2AEventStream } from '../client/a2a-event-stream.js';
import { credentialOriginsOf } from '../client/credential-scope.js';
import { HTTP_TOKEN } from '../client/headers.js';
import type { A2ABinding } from '../client/interface-selection.js';
import { DEFAULT_API_KEY_HEADER } from '../client/peers/peer-options.js';
import { peerToolSpecs } from '../client/peers/peer-tool-specs.js';
import { EgressRefusedError } from '../net/egress-errors.js';
import { EgressPolicy } from '../net/egress-policy.js';
import { redactUrlsIn } from '../net/redact-url.js';
import { PermissionDeniedError, UnauthenticatedError } from '../protocol/errors.js';
import { TASK_STATES, type AgentCard, type StreamResponse, type TaskState } from '../protocol/types.js';
import { UsageError, intOf, parseArgs, valueOf, type ParsedArgs } from './args.js';
import { formatCard, formatEvent, formatResponse, formatTask, formatTaskList, formatTools } from './format.js';
import { ARITY, EXIT_CODES, USAGE, exitOf } from './usage.js';
import { runPushCommand } from './push-command.js';

export { EXIT_CODES } from './usage.js';

/** Where the CLI writes and what it reads. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  /** Aborts the call in flight (Ctrl-C). */
  signal?: AbortSignal;
}

/** Headers that carry credentials: they come from the environment, never from the command line. */
const SECRET_HEADERS = /^(authorization|proxy-authorization|cookie|x-api-key|api-key|x-auth-token)$|token|secret|key/i;

function binding(args: ParsedArgs): A2ABinding | undefined {
  const value = valueOf(args, 'binding');
  if (value === undefined) return undefined;
  const normalised = value.toLowerCase();
  if (normalised === 'jsonrpc' || normalised === 'json-rpc') return 'JSONRPC';
  if (normalised === 'rest' || normalised === 'http+json') return 'HTTP+JSON';
  throw new UsageError('--binding must be jsonrpc or rest');
}

function headers(args: ParsedArgs, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const header of args.values.get('header') ?? []) {
    const colon = header.indexOf(':');
    const name = colon === -1 ? '' : header.slice(0, colon).trim();
    if (!HTTP_TOKEN.test(name)) throw new UsageError('--header must be name:value');
    if (SECRET_HEADERS.test(name)) throw new UsageError(`--header ${name}: secrets do not go on the command line (shell history, process list); use --bearer-env or --api-key-env`);
    out[name.toLowerCase()] = header.slice(colon + 1).trim();
  }
  const secretFrom = (option: string): string | undefined => {
    const variable = valueOf(args, option);
    if (variable === undefined) return undefined;
    const value = env[variable];
    if (value === undefined || value.trim() === '') throw new UsageError(`--${option}: the environment variable ${variable} is not set`);
    return value.trim();
  };
  const bearer = secretFrom('bearer-env');
  if (bearer !== undefined) out.authorization = `Bearer ${bearer}`;
  const apiKey = secretFrom('api-key-env');
  if (apiKey !== undefined) out[(valueOf(args, 'api-key-header') ?? DEFAULT_API_KEY_HEADER).toLowerCase()] = apiKey;
  return out;
}

function statusOf(args: ParsedArgs): TaskState | undefined {
  const value = valueOf(args, 'status');
  if (value === undefined) return undefined;
  const upper = value.toUpperCase();
  const state = (upper.startsWith('TASK_STATE_') ? upper : `TASK_STATE_${upper}`) as TaskState;
  if (!TASK_STATES.includes(state)) throw new UsageError(`--status must be one of ${TASK_STATES.map((s) => s.replace('TASK_STATE_', '').toLowerCase()).join(', ')}`);
  return state;
}

function targetUrl(value: string): string {
  try {
    return new URL(value).href;
  } catch {
    throw new UsageError('<url> must be an absolute URL, such as https://agent.example.com');
  }
}

function credentialOrigins(args: ParsedArgs): string[] {
  const problems: string[] = [];
  const origins = credentialOriginsOf(args.values.get('credential-origin') ?? [], '--credential-origin', problems);
  if (problems.length > 0) throw new UsageError(problems.join('; '));
  return origins;
}

/** The client for one run: no breaker (a single call), the typed origin trusted, the rest as the flags allow. */
function clientFor(url: string, args: ParsedArgs, env: NodeJS.ProcessEnv): A2AClient {
  const preferred = binding(args);
  const tenant = valueOf(args, 'tenant');
  const timeout = intOf(args, 'timeout');
  const options: A2AClientOptions = {
    cardUrl: url,
    egress: { allowHttp: args.flags.has('allow-http'), allowPrivate: args.flags.has('allow-private'), trustedOrigins: [new URL(url).origin] },
    circuitBreakers: false,
    headers: headers(args, env),
    credentialOrigins: credentialOrigins(args),
    ...(timeout === undefined ? {} : { timeoutMs: timeout }), // else the client's default
    ...(preferred === undefined ? {} : { preferredBinding: preferred }),
    ...(tenant === undefined ? {} : { tenant }),
  };
  return new A2AClient(options);
}

class Output {
  constructor(
    private readonly io: CliIo,
    readonly json: boolean,
  ) {}

  /** `readable` for people, `value` as one JSON line for scripts. */
  emit(readable: () => string, value: unknown): void {
    this.io.stdout.write(`${this.json ? JSON.stringify(value) : readable()}\n`);
  }

  /** A line for the person at the terminal, on stderr (as `{"notice"}` with --json). */
  notice(text: string): void {
    this.io.stderr.write(`${this.json ? JSON.stringify({ notice: text }) : `nestjs-a2a: ${text}`}\n`);
  }
}

/** Prints the events as they arrive. @returns the state the task was last seen in */
async function printStream(stream: A2AEventStream, out: Output): Promise<TaskState | undefined> {
  let state: TaskState | undefined;
  for await (const event of stream) {
    const id = stream.lastEventId;
    state = stateIn(event) ?? state;
    out.emit(() => formatEvent(event, id), id === undefined ? event : { id, ...event });
  }
  return state;
}

function stateIn(event: StreamResponse): TaskState | undefined {
  if ('task' in event) return event.task.status.state;
  if ('statusUpdate' in event) return event.statusUpdate.status.state;
  return undefined;
}

/**
 * Why the origin the user typed would not pass the egress policy by itself (plain http, a loopback
 * or private address) when the flags do not allow it anyway; undefined when it would.
 */
async function trustNotice(url: string, args: ParsedArgs): Promise<string | undefined> {
  const parsed = new URL(url);
  const reasons: string[] = [];
  if (parsed.protocol === 'http:' && !args.flags.has('allow-http')) reasons.push('plain http');
  if (!args.flags.has('allow-private')) {
    const refusal = await new EgressPolicy({ allowHttp: true }).resolveAndCheck(parsed.hostname).then(
      () => undefined,
      (error: unknown) => (error instanceof EgressRefusedError && error.reason !== 'dns' ? error.reason : undefined),
    );
    if (refusal !== undefined) reasons.push(`a ${refusal} address`);
  }
  if (reasons.length === 0) return undefined;
  return `trusting ${parsed.origin}, the address you gave (${reasons.join(', ')}); other URLs its card names must pass the egress policy (--allow-http, --allow-private)`;
}

/** What the command line should add when the agent refused the credentials (or their absence). */
function credentialHint(card: AgentCard | undefined, args: ParsedArgs): string {
  const flags = new Set<string>();
  for (const scheme of Object.values(card?.securitySchemes ?? {})) {
    const apiKey = scheme.apiKeySecurityScheme;
    if (apiKey?.location === 'header') flags.add(apiKey.name.toLowerCase() === DEFAULT_API_KEY_HEADER.toLowerCase() ? '--api-key-env VAR' : `--api-key-env VAR --api-key-header ${apiKey.name}`);
    if (scheme.httpAuthSecurityScheme?.scheme.toLowerCase() === 'bearer' || scheme.oauth2SecurityScheme || scheme.openIdConnectSecurityScheme) flags.add('--bearer-env VAR');
  }
  const wanted = flags.size > 0 ? [...flags].join(' or ') : '--bearer-env VAR (Authorization: Bearer) or --api-key-env VAR (an API key header)';
  const sent = args.values.has('bearer-env') || args.values.has('api-key-env');
  return `(${sent ? 'the credentials sent were refused; its card asks for' : 'the agent needs credentials: add'} ${wanted}, VAR being the environment variable that holds the secret)`;
}

/** A failed call, with a line of advice for the person who made it. */
class CliFailure {
  constructor(
    readonly error: unknown,
    readonly hint?: string,
  ) {}
}

/** @returns the exit code: the task's final state for the commands that follow one */
async function run(command: string, args: ParsedArgs, io: CliIo, out: Output): Promise<number> {
  const spec = ARITY[command];
  const [rawUrl, ...rest] = args.positionals;
  if (rest.length + 1 < spec.positionals || rawUrl === undefined || (!spec.variadicText && args.positionals.length > spec.positionals)) {
    throw new UsageError(`usage: nestjs-a2a ${spec.usage}`);
  }
  const url = targetUrl(rawUrl);
  const client = clientFor(url, args, io.env);
  const signal = io.signal;
  const call = signal === undefined ? {} : { signal };
  const notice = await trustNotice(url, args);
  if (notice !== undefined) out.notice(notice);
  try {
    return await runCommand(command, args, rest, client, call, out);
  } catch (error) {
    if (!(error instanceof UnauthenticatedError || error instanceof PermissionDeniedError)) throw error;
    // the card was fetched (it is public) before the call was refused: it says what to send
    throw new CliFailure(error, credentialHint(await client.getAgentCard(call).catch(() => undefined), args));
  } finally {
    await client.close();
  }
}

async function runCommand(command: string, args: ParsedArgs, rest: string[], client: A2AClient, call: { signal?: AbortSignal }, out: Output): Promise<number> {
  const done = (readable: () => string, value: unknown, state?: TaskState): number => {
    out.emit(readable, value);
    return exitOf(state);
  };
  switch (command) {
    case 'card': {
      const card = await client.getAgentCard(call);
      return done(() => formatCard(card), card);
    }
    case 'send':
    case 'stream': {
      const contextId = valueOf(args, 'context');
      const taskId = valueOf(args, 'task');
      const message = {
        messageId: randomUUID(),
        role: 'ROLE_USER' as const,
        parts: [{ text: rest.join(' ') }],
        ...(contextId === undefined ? {} : { contextId }),
        ...(taskId === undefined ? {} : { taskId }),
      };
      if (command === 'stream') return exitOf(await printStream(client.sendStreamingMessage({ message }, call), out));
      const configuration = args.flags.has('return-immediately') ? { configuration: { returnImmediately: true } } : {};
      const response = await client.sendMessage({ message, ...configuration }, call);
      return done(() => formatResponse(response), response, 'task' in response ? response.task.status.state : undefined);
    }
    case 'get': {
      const historyLength = intOf(args, 'history', 0);
      const task = await client.getTask({ id: rest[0], ...(historyLength === undefined ? {} : { historyLength }) }, call);
      return done(() => formatTask(task), task, task.status.state);
    }
    case 'list': {
      const status = statusOf(args);
      const pageSize = intOf(args, 'page-size');
      const contextId = valueOf(args, 'context');
      const pageToken = valueOf(args, 'page-token');
      const list = await client.listTasks(
        {
          ...(status === undefined ? {} : { status }),
          ...(pageSize === undefined ? {} : { pageSize }),
          ...(contextId === undefined ? {} : { contextId }),
          ...(pageToken === undefined ? {} : { pageToken }),
        },
        call,
      );
      return done(() => formatTaskList(list), list);
    }
    case 'cancel': {
      const task = await client.cancelTask({ id: rest[0] }, call);
      return done(() => formatTask(task), task); // CANCELED is what was asked for
    }
    case 'subscribe': {
      const lastEventId = valueOf(args, 'last-event-id');
      return exitOf(await printStream(client.subscribeToTask({ id: rest[0] }, { ...call, ...(lastEventId === undefined ? {} : { lastEventId }) }), out));
    }
    case 'tools': {
      const card = await client.getAgentCard(call);
      const name = valueOf(args, 'name') ?? (card.name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 32) || 'peer');
      const specs = peerToolSpecs({ name, allow: args.values.get('allow') ?? ['*'] }, card);
      return done(
        () => formatTools(specs),
        specs.map((s) => ({ name: s.name, description: s.description, inputSchema: s.inputSchema, peer: s.peer, skill: s.skill.id })),
      );
    }
  }
  throw new UsageError(`unknown command ${command}`);
}

function failure(io: CliIo, json: boolean, failed: unknown): number {
  const { error, hint } = failed instanceof CliFailure ? failed : { error: failed, hint: undefined };
  const name = error instanceof Error ? error.name : 'Error';
  // client errors are redacted already; a URL in anything else is redacted here, to be sure
  const message = redactUrlsIn(error instanceof Error ? error.message : String(error));
  if (json) io.stderr.write(`${JSON.stringify({ error: { name, message, ...(hint === undefined ? {} : { hint }) } })}\n`);
  else {
    io.stderr.write(`${name}: ${message}\n`);
    if (hint !== undefined) io.stderr.write(`${hint}\n`);
    if (error instanceof EgressRefusedError && ['scheme', 'loopback', 'private', 'link-local', 'unique-local'].includes(error.reason)) {
      io.stderr.write('(an agent on this machine or a private network: add --allow-http and/or --allow-private, for development)\n');
    }
  }
  return EXIT_CODES.failed;
}

/**
 * Runs one command line (`argv` without `node` and the script).
 * @returns the exit code
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseArgs(argv);
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args.flags.has('help') || args.command === 'help') {
    io.stdout.write(USAGE);
    return 0;
  }
  const json = args.flags.has('json');
  if (args.command === 'push') {
    try {
      return await runPushCommand(args, io.env, (value, text) => io.stdout.write(`${json ? JSON.stringify(value) : text}\n`));
    } catch (error) {
      if (!(error instanceof UsageError)) return failure(io, json, error);
      io.stderr.write(`${error.message}\n`);
      return 2;
    }
  }
  if (args.command === undefined || ARITY[args.command] === undefined) {
    io.stderr.write(`${args.command === undefined ? 'a command is needed' : `unknown command ${args.command}`}\n\n${USAGE}`);
    return 2;
  }
  try {
    return await run(args.command, args, io, new Output(io, json));
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${error.message}\n`);
      return 2;
    }
    return failure(io, json, error);
  }
}
