/**
 * What the command line accepts and answers: its usage text (`--help`), each command's arguments,
 * and the exit status of each outcome. The README's "The command line" repeats them.
 */
import type { TaskState } from '../protocol/types.js';
import { PUSH_OPTIONS_USAGE, PUSH_USAGE } from './push-command.js';

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
${PUSH_USAGE}
<url> is the agent's origin or base URL (the well-known card path is appended) or its card URL.

Options:
  --json                      machine-readable output: one JSON value per line
  --binding jsonrpc|rest      use this binding when the card offers it
  --tenant <tenant>           the tenant of every request
  --header <name:value>       an extra request header (repeatable; never a secret: see below)
  --bearer-env <VAR>          send "Authorization: Bearer $VAR"
  --api-key-env <VAR>         send $VAR in the --api-key-header header
  --api-key-header <name>     the header of --api-key-env (default X-API-Key)
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
  --allow-http                allow http:// URLs beyond the one you gave (development)
  --allow-private             allow loopback and private addresses beyond the one you gave (development)
${PUSH_OPTIONS_USAGE}  -h, --help                  this text

The <url> you give is trusted as typed (http, a local or private address: a notice on stderr says
so); every other URL its card names must be https and public unless --allow-http/--allow-private.

Exit codes:
  0  done (send, stream, subscribe, get: the task is COMPLETED, or waits for input)
  1  the call failed (its error on stderr; refused credentials name the flag to use)
  2  usage
  3  the task ended FAILED       (send, stream, subscribe, get)
  4  the task ended REJECTED     (send, stream, subscribe, get)
  5  the task ended CANCELED     (send, stream, subscribe, get; cancel exits 0)
  130 interrupted (Ctrl-C)
A closed output (| head) ends the command quietly.
`;

/** The exit status of each outcome, as `--help` and the README list them. */
export const EXIT_CODES = { done: 0, failed: 1, usage: 2, taskFailed: 3, taskRejected: 4, taskCanceled: 5, interrupted: 130 } as const;

/** A task that ended this way makes the command exit with its own status. */
const EXIT_OF_STATE: Partial<Record<TaskState, number>> = {
  TASK_STATE_FAILED: EXIT_CODES.taskFailed,
  TASK_STATE_REJECTED: EXIT_CODES.taskRejected,
  TASK_STATE_CANCELED: EXIT_CODES.taskCanceled,
};

/** The exit status of a command whose task ended in `state` (done when it did not end, or ended well). */
export const exitOf = (state: TaskState | undefined): number => (state === undefined ? EXIT_CODES.done : (EXIT_OF_STATE[state] ?? EXIT_CODES.done));

/** Each command's positional arguments, and its usage line. */
export const ARITY: Record<string, { positionals: number; variadicText?: boolean; usage: string }> = {
  card: { positionals: 1, usage: 'card <url>' },
  send: { positionals: 2, variadicText: true, usage: 'send <url> <text>' },
  stream: { positionals: 2, variadicText: true, usage: 'stream <url> <text>' },
  get: { positionals: 2, usage: 'get <url> <task-id>' },
  list: { positionals: 1, usage: 'list <url>' },
  cancel: { positionals: 2, usage: 'cancel <url> <task-id>' },
  subscribe: { positionals: 2, usage: 'subscribe <url> <task-id>' },
  tools: { positionals: 1, usage: 'tools <url>' },
};
