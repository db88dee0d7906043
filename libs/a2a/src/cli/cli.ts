/**
 * `nestjs-a2a <command>`: talk to an A2A agent from a terminal or a script, with the library's own
 * client (card discovery, both bindings, typed errors, the egress policy). Readable output by
 * default, `--json` for scripts. Secrets never go on the command line: `--bearer-env NAME` and
 * `--api-key-env NAME` name the environment variable that holds them.
 *
 * Exit codes: 0 done, 1 the call failed (the error's class and message on stderr), 2 usage.
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
import { redactUrlsIn } from '../net/redact-url.js';
import { TASK_STATES, type TaskState } from '../protocol/types.js';
import { UsageError, intOf, parseArgs, valueOf, type ParsedArgs } from './args.js';
import { formatCard, formatEvent, formatResponse, formatTask, formatTaskList, formatTools } from './format.js';

/** Where the CLI writes and what it reads. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  /** Aborts the call in flight (Ctrl-C). */
  signal?: AbortSignal;
}

export const USAGE = `Usage: nestjs-a2a <command> [options]

Commands:
  card <url>                  the agent's card
  send <url> <text>           SendMessage: prints the reply (a message, or the task)
  stream <url> <text>         SendStreamingMessage: prints the events as they arrive
  get <url> <task-id>         GetTask
  list <url>                  ListTasks
  cancel <url> <task-id>      CancelTask
  subscribe <url> <task-id>   SubscribeToTask: prints the events as they arrive
  tools <url>                 the tools PeerToolProvider would expose for this agent

<url> is the agent's origin or base URL (the well-known card path is appended) or its card URL.

Options:
  --json                      machine-readable output: one JSON value per line
  --binding jsonrpc|rest      use this binding when the card offers it
  --tenant <tenant>           the tenant of every request
  --header <name:value>       an extra request header (repeatable; never a secret: see below)
  --bearer-env <VAR>          send "Authorization: Bearer $VAR"
  --api-key-env <VAR>         send $VAR in the --api-key-header header (default X-API-Key)
  --credential-origin <url>   headers may also go to this origin, when the card names an
                              interface there (repeatable; by default only to <url>'s origin)
  --timeout <ms>              budget of one call, until a stream opens (default 60000)
  --context <id>              send, stream: the contextId of the message
  --task <id>                 send, stream: continue this task
  --return-immediately        send: answer as soon as the task exists
  --history <n>               get: how much history to return
  --status <state>            list: only tasks in this state (working, TASK_STATE_WORKING …)
  --page-size <n>             list: tasks per page
  --page-token <token>        list: the page after a previous one
  --last-event-id <id>        subscribe: resume after this event (no snapshot)
  --name <peer>               tools: the peer's name (default: from the card)
  --allow <glob>              tools: only skills whose id matches (repeatable; default *)
  --allow-http                allow http:// URLs (development)
  --allow-private             allow loopback and private addresses (development)
  -h, --help                  this text

Exit codes: 0 done, 1 the call failed (its error on stderr), 2 usage.
`;

const ARITY: Record<string, { positionals: number; variadicText?: boolean; usage: string }> = {
  card: { positionals: 1, usage: 'card <url>' },
  send: { positionals: 2, variadicText: true, usage: 'send <url> <text>' },
  stream: { positionals: 2, variadicText: true, usage: 'stream <url> <text>' },
  get: { positionals: 2, usage: 'get <url> <task-id>' },
  list: { positionals: 1, usage: 'list <url>' },
  cancel: { positionals: 2, usage: 'cancel <url> <task-id>' },
  subscribe: { positionals: 2, usage: 'subscribe <url> <task-id>' },
  tools: { positionals: 1, usage: 'tools <url>' },
};

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

/** The client for one run: no breaker (a single call), the network as the flags allow. */
function clientFor(url: string, args: ParsedArgs, env: NodeJS.ProcessEnv): A2AClient {
  const preferred = binding(args);
  const tenant = valueOf(args, 'tenant');
  const timeout = intOf(args, 'timeout');
  const options: A2AClientOptions = {
    cardUrl: url,
    egress: { allowHttp: args.flags.has('allow-http'), allowPrivate: args.flags.has('allow-private') },
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
}

async function printStream(stream: A2AEventStream, out: Output): Promise<void> {
  for await (const event of stream) {
    const id = stream.lastEventId;
    out.emit(() => formatEvent(event, id), id === undefined ? event : { id, ...event });
  }
}

async function run(command: string, args: ParsedArgs, io: CliIo, out: Output): Promise<void> {
  const spec = ARITY[command];
  const [rawUrl, ...rest] = args.positionals;
  if (rest.length + 1 < spec.positionals || rawUrl === undefined || (!spec.variadicText && args.positionals.length > spec.positionals)) {
    throw new UsageError(`usage: nestjs-a2a ${spec.usage}`);
  }
  const url = targetUrl(rawUrl);
  const client = clientFor(url, args, io.env);
  const signal = io.signal;
  const call = signal === undefined ? {} : { signal };
  try {
    switch (command) {
      case 'card': {
        const card = await client.getAgentCard(call);
        return out.emit(() => formatCard(card), card);
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
        if (command === 'stream') return await printStream(client.sendStreamingMessage({ message }, call), out);
        const configuration = args.flags.has('return-immediately') ? { configuration: { returnImmediately: true } } : {};
        const response = await client.sendMessage({ message, ...configuration }, call);
        return out.emit(() => formatResponse(response), response);
      }
      case 'get': {
        const historyLength = intOf(args, 'history', 0);
        const task = await client.getTask({ id: rest[0], ...(historyLength === undefined ? {} : { historyLength }) }, call);
        return out.emit(() => formatTask(task), task);
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
        return out.emit(() => formatTaskList(list), list);
      }
      case 'cancel': {
        const task = await client.cancelTask({ id: rest[0] }, call);
        return out.emit(() => formatTask(task), task);
      }
      case 'subscribe': {
        const lastEventId = valueOf(args, 'last-event-id');
        return await printStream(client.subscribeToTask({ id: rest[0] }, { ...call, ...(lastEventId === undefined ? {} : { lastEventId }) }), out);
      }
      case 'tools': {
        const card = await client.getAgentCard(call);
        const name = valueOf(args, 'name') ?? (card.name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 32) || 'peer');
        const specs = peerToolSpecs({ name, allow: args.values.get('allow') ?? ['*'] }, card);
        return out.emit(
          () => formatTools(specs),
          specs.map((s) => ({ name: s.name, description: s.description, inputSchema: s.inputSchema, peer: s.peer, skill: s.skill.id })),
        );
      }
    }
  } finally {
    await client.close();
  }
}

function failure(io: CliIo, json: boolean, error: unknown): number {
  const name = error instanceof Error ? error.name : 'Error';
  // client errors are redacted already; a URL in anything else is redacted here, to be sure
  const message = redactUrlsIn(error instanceof Error ? error.message : String(error));
  if (json) io.stderr.write(`${JSON.stringify({ error: { name, message } })}\n`);
  else {
    io.stderr.write(`${name}: ${message}\n`);
    if (error instanceof EgressRefusedError && ['scheme', 'loopback', 'private', 'link-local', 'unique-local'].includes(error.reason)) {
      io.stderr.write('(an agent on this machine or a private network: add --allow-http and/or --allow-private, for development)\n');
    }
  }
  return 1;
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
  if (args.command === undefined || ARITY[args.command] === undefined) {
    io.stderr.write(`${args.command === undefined ? 'a command is needed' : `unknown command ${args.command}`}\n\n${USAGE}`);
    return 2;
  }
  try {
    await run(args.command, args, io, new Output(io, json));
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${error.message}\n`);
      return 2;
    }
    return failure(io, json, error);
  }
}
