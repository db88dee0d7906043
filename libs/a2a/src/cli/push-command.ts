/**
 * `nestjs-a2a push <what>`: the operators' side of push notifications, from outside the app, on the
 * app's Redis (its URL from an environment variable: it may hold a password). The same as the
 * injectable `PushDeliveryAdmin`: dead letters (list, one, redeliver) and a task's delivery state.
 */
import type { Redis } from 'ioredis';
import { PushDeliveryAdmin } from '../push/push-delivery-admin.js';
import { RedisPushDeadLetters } from '../push/push-dead-letters.js';
import { A2A_PUSH_QUEUE_NAME } from '../config/a2a.constants.js';
import { importOptionalPackages } from '../config/optional-package.js';
import { PushDeliveryQueue, PushQueueConnection } from '../push/push-delivery-queue.js';
import { RedisPushOutbox } from '../push/push-outbox.js';
import { resolvePushOptions } from '../push/push-options.js';
import { RedisPushConfigStore } from '../push/redis-push-config-store.js';
import { connectRedis } from '../redis/redis-connection.js';
import { DEFAULT_KEY_PREFIX } from '../redis/redis-keys.js';
import { UsageError, type ParsedArgs } from './args.js';

export const PUSH_USAGE = `  push dead-letters           the newest dead letters (--limit <n>, default 20)
  push dead-letter <id>       one dead letter, by its webhook-id
  push redeliver <id>         send a dead letter's notification again (the same webhook-id)
  push state <task-id>        where each push config of a task stands (--agent, --subject, --tenant)
`;

export const PUSH_OPTIONS_USAGE = `  --redis-env <VAR>           push: the app's Redis URL is in $VAR (default REDIS_URL)
  --prefix <prefix>           push: the app's Redis key prefix (default a2a:)
  --queue-prefix <prefix>     push redeliver: its BullMQ prefix (default <prefix>bull)
  --retry-schedule <delays>   push redeliver: the app's retry schedule (attempts of the redelivery)
  --limit <n>                 push dead-letters: how many (default 20)
  --agent <name>              push state: the task's agent
  --subject <subject>         push state: the task's caller (default anonymous)
`;

const ARITY: Record<string, number> = { 'dead-letters': 0, 'dead-letter': 1, redeliver: 1, state: 1 };

/** The JSON or text of one answer. */
type Print = (value: unknown, text: string) => void;

/** @returns the exit code */
export async function runPushCommand(args: ParsedArgs, env: NodeJS.ProcessEnv, print: Print): Promise<number> {
  const [what, ...rest] = args.positionals;
  if (what === undefined || ARITY[what] === undefined || rest.length !== ARITY[what]) {
    throw new UsageError(`usage: nestjs-a2a push dead-letters | dead-letter <webhook-id> | redeliver <webhook-id> | state <task-id>`);
  }
  const one = (name: string) => args.values.get(name)?.at(-1);
  const variable = one('redis-env') ?? 'REDIS_URL';
  const url = env[variable];
  if (!url) throw new UsageError(`push: the app's Redis URL is read from $${variable}, which is not set (--redis-env names another variable)`);
  const prefix = one('prefix') ?? DEFAULT_KEY_PREFIX;
  const { client } = await connectRedis({ url, options: { connectionName: 'a2a-cli' } });
  let queue: PushDeliveryQueue | undefined;
  try {
    // the queue connects only for a redelivery: the other commands read Redis and change nothing
    const lazyQueue = {
      add: async (jobs: Parameters<PushDeliveryQueue['add']>[0]) => {
        const options = resolvePushOptions({ retrySchedule: one('retry-schedule') });
        if (!queue) {
          const [{ Queue }] = await importOptionalPackages<[typeof import('bullmq')]>('push redeliver', ['bullmq']);
          const connection = new PushQueueConnection().fromModuleRedis({ url });
          queue = new PushDeliveryQueue(new Queue(A2A_PUSH_QUEUE_NAME, { connection, prefix: one('queue-prefix') ?? `${prefix}bull` }), options, 60 * 60 * 1000);
        }
        await queue.add(jobs);
      },
    };
    const admin = new PushDeliveryAdmin(
      new RedisPushDeadLetters(client, { keyPrefix: prefix, limit: Number.MAX_SAFE_INTEGER }),
      new RedisPushConfigStore(client, { keyPrefix: prefix }),
      new RedisPushOutbox(client, { keyPrefix: prefix }),
      lazyQueue,
    );
    return await run(admin, what, rest[0], one, print);
  } finally {
    await queue?.queue.close();
    await quit(client);
  }
}

async function run(admin: PushDeliveryAdmin, what: string, id: string | undefined, one: (name: string) => string | undefined, print: Print): Promise<number> {
  switch (what) {
    case 'dead-letters': {
      const limit = Number(one('limit') ?? 20);
      if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
      const letters = await admin.listDeadLetters(limit);
      print(letters, letters.map((l) => `${l.failedAt}  ${l.webhookId}  ${l.url}  ${l.attempts} attempts: ${l.lastError}`).join('\n') || '(no dead letters)');
      return 0;
    }
    case 'dead-letter': {
      const letter = await admin.getDeadLetter(id!);
      if (!letter) return notFound(print, `no dead letter ${id}`);
      print(letter, JSON.stringify(letter, undefined, 2));
      return 0;
    }
    case 'redeliver': {
      if (!(await admin.redeliver(id!))) return notFound(print, `no dead letter ${id}`);
      print({ redelivered: id }, `${id}: queued again`);
      return 0;
    }
    default: {
      const agent = one('agent');
      if (!agent) throw new UsageError('push state: --agent <name> is needed (tasks and their configs are scoped by agent and caller)');
      const states = await admin.deliveryState({ agent, tenant: one('tenant') ?? '', subject: one('subject') ?? 'anonymous' }, id!);
      const line = (s: (typeof states)[number]) =>
        `${s.configId}  ${s.url}  delivered through ${s.delivered}, pending through ${s.pendingThrough}` +
        (s.failing ? `; event ${s.failing.seq}: ${s.failing.attempts} attempts, last ${s.failing.lastError}, next at ${s.failing.nextAttemptAt}` : '');
      print(states, states.map(line).join('\n') || '(no push configs for this task and caller)');
      return 0;
    }
  }
}

function notFound(print: Print, message: string): number {
  print({ error: { name: 'NotFound', message } }, message);
  return 1;
}

async function quit(client: Redis): Promise<void> {
  await client.quit().catch(() => client.disconnect());
}
