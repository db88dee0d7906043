/**
 * Wiring of push notifications: with `push` in the options, the Redis config store, the outbox and
 * its relay (also the event listener), the ordered worker of the BullMQ queue (the queue itself is
 * registered through `@nestjs/bullmq`, in `push/push-queue.module.ts`), and the service
 * behind the push-config operations; without it, the
 * service that answers PushNotificationNotSupported and no listener. Nothing else branches on it.
 */
import type { Provider } from '@nestjs/common';
import type { ResolvedA2AOptions } from './a2a-options.js';
import { A2A_OPTIONS, A2A_PUSH_ISSUER, A2A_PUSH_OPTIONS, A2A_PUSH_PROCESSOR, A2A_PUSH_QUEUE, A2A_PUSH_SIGNER, A2A_PUSH_WORKER, A2A_REDIS } from './config/a2a.constants.js';
import { EgressPolicy } from './net/egress-policy.js';
import { createPinnedDispatcher } from './net/pinned-dispatcher.js';
import { NotificationSigner } from './push/notification-signer.js';
import { PushConfigStore } from './push/push-config-store.js';
import { PushDeadLetters, RedisPushDeadLetters } from './push/push-dead-letters.js';
import { PushDeliveryAdmin } from './push/push-delivery-admin.js';
import { PushDeliveryEvents } from './push/push-delivery-events.js';
import type { PushDeliveryQueue } from './push/push-delivery-queue.js';
import { PushDeliveryLifecycle } from './push/push-delivery.lifecycle.js';
import type { PushDeliveryWorker } from './push/push-delivery.worker.js';
import { PushNotificationService } from './push/push-notification.service.js';
import { RedisPushOutbox } from './push/push-outbox.js';
import { PushRelay } from './push/push-relay.js';
import { OrderedPushDelivery } from './push/ordered-push-delivery.js';
import { DeliverySlots } from './push/delivery-slots.js';
import { DisabledPushNotifications, PushNotifications } from './push/push-notifications.js';
import { configRetentionMs, type ResolvedPushOptions } from './push/push-options.js';
import { RedisPushConfigStore } from './push/redis-push-config-store.js';
import { SecretBox } from './push/secret-box.js';
import { WebhookDeliveryProcessor } from './push/webhook-delivery.processor.js';
import { AgentCardService } from './server/agent-card.service.js';
import { TASK_EVENT_LISTENERS } from './tasks/task-events.js';
import { TaskBackend } from './tasks/task-backend.js';
import { RedisTaskBackend } from './tasks/redis/redis-task-backend.js';
import type { RedisConnection } from './redis/redis-connection.js';

/** How often each instance sweeps the push outbox for work another instance (one that died, say) left. */
const RELAY_INTERVAL_MS = 1_000;

/** The queue's registration (a global module) provides it with push on only. */
const PUSH_QUEUE = { token: A2A_PUSH_QUEUE, optional: true };

const keyPrefixOf = (options: ResolvedA2AOptions) => options.redis?.keyPrefix;
const configTtlOf = (options: ResolvedA2AOptions, push: ResolvedPushOptions) => configRetentionMs(push, options.tasks.retentionMs);

export const PUSH_PROVIDERS: Provider[] = [
  { provide: A2A_PUSH_OPTIONS, useFactory: (options: ResolvedA2AOptions) => options.push, inject: [A2A_OPTIONS] },
  {
    provide: PushConfigStore,
    useFactory: (options: ResolvedA2AOptions, redis?: RedisConnection) =>
      options.push && redis ? new RedisPushConfigStore(redis.client, { keyPrefix: keyPrefixOf(options) }) : undefined,
    inject: [A2A_OPTIONS, A2A_REDIS],
  },
  {
    provide: PushDeadLetters,
    useFactory: (options: ResolvedA2AOptions, redis?: RedisConnection) =>
      options.push && redis ? new RedisPushDeadLetters(redis.client, { keyPrefix: keyPrefixOf(options), limit: options.push.deadLetterLimit, retentionMs: options.tasks.retentionMs }) : undefined,
    inject: [A2A_OPTIONS, A2A_REDIS],
  },
  PushDeliveryEvents,
  {
    provide: A2A_PUSH_SIGNER,
    useFactory: async (push?: ResolvedPushOptions) => {
      if (!push?.signing) return undefined;
      const signer = new NotificationSigner(push.signing);
      await signer.selfTest(); // a key that cannot sign fails start-up
      return signer;
    },
    inject: [A2A_PUSH_OPTIONS],
  },
  {
    provide: A2A_PUSH_ISSUER,
    useFactory: (cards: AgentCardService) => (agent: string) => cards.cardUrl(agent),
    inject: [AgentCardService],
  },
  {
    provide: RedisPushOutbox,
    useFactory: (options: ResolvedA2AOptions, redis?: RedisConnection) =>
      options.push && redis ? new RedisPushOutbox(redis.client, { keyPrefix: keyPrefixOf(options) }) : undefined,
    inject: [A2A_OPTIONS, A2A_REDIS],
  },
  {
    provide: PushRelay,
    useFactory: (options: ResolvedA2AOptions, outbox: RedisPushOutbox | undefined, configs: PushConfigStore, queue: PushDeliveryQueue | undefined, tasks: TaskBackend, worker?: PushDeliveryWorker) =>
      options.push && outbox && queue
        ? new PushRelay(
            outbox,
            configs,
            queue,
            {
              ...options.push,
              finishedTaskConfigTtlMs: configTtlOf(options, options.push),
              intervalMs: RELAY_INTERVAL_MS,
              // the Redis backend the module made writes the outbox in its commit script
              marksInCommit: !options.taskBackend && tasks instanceof RedisTaskBackend,
            },
            // this instance's own commits start their runs in the worker's free slots, without a job
            worker && ((data) => worker.tryRun(data)),
          )
        : undefined,
    inject: [A2A_OPTIONS, RedisPushOutbox, PushConfigStore, PUSH_QUEUE, TaskBackend, A2A_PUSH_WORKER],
  },
  {
    provide: A2A_PUSH_PROCESSOR,
    useFactory: (
      options: ResolvedA2AOptions,
      push: ResolvedPushOptions | undefined,
      configs: PushConfigStore,
      deadLetters: PushDeadLetters,
      events: PushDeliveryEvents,
      signer: NotificationSigner | undefined,
      issuerOf: (agent: string) => string,
      outbox: RedisPushOutbox | undefined,
      queue: PushDeliveryQueue | undefined,
      tasks: TaskBackend,
    ) => {
      if (!push || !outbox || !queue) return undefined;
      const policy = new EgressPolicy(push.egress);
      const dispatcher = createPinnedDispatcher(policy, {
        connectTimeoutMs: Math.min(10_000, push.attemptTimeoutMs),
        headersTimeoutMs: push.attemptTimeoutMs,
        bodyTimeoutMs: push.attemptTimeoutMs,
      });
      const webhooks = new WebhookDeliveryProcessor({ configs, box: new SecretBox(push.encryptionKey), dispatcher, events, deadLetters, options: push, issuerOf, signer });
      const finishedTaskConfigTtlMs = configTtlOf(options, push);
      return new OrderedPushDelivery({ configs, outbox, log: tasks.log, tasks: tasks.store, webhooks, queue, slots: new DeliverySlots(push), options: push, finishedTaskConfigTtlMs });
    },
    inject: [A2A_OPTIONS, A2A_PUSH_OPTIONS, PushConfigStore, PushDeadLetters, PushDeliveryEvents, A2A_PUSH_SIGNER, A2A_PUSH_ISSUER, RedisPushOutbox, PUSH_QUEUE, TaskBackend],
  },
  {
    provide: PushNotifications,
    useFactory: (options: ResolvedA2AOptions, configs: PushConfigStore | undefined, tasks: TaskBackend, outbox: RedisPushOutbox | undefined) => {
      if (!options.push || !configs) return new DisabledPushNotifications();
      return new PushNotificationService(configs, tasks.store, new EgressPolicy(options.push.egress), new SecretBox(options.push.encryptionKey), {
        maxConfigsPerTask: options.push.maxConfigsPerTask,
        finishedTaskConfigTtlMs: configTtlOf(options, options.push),
        markDue: outbox && ((scope, taskId, seq, terminal) => outbox.mark(scope, taskId, seq, terminal)),
      });
    },
    inject: [A2A_OPTIONS, PushConfigStore, TaskBackend, RedisPushOutbox],
  },
  {
    provide: PushDeliveryAdmin,
    useFactory: (deadLetters: PushDeadLetters | undefined, configs: PushConfigStore | undefined, outbox: RedisPushOutbox | undefined, queue: PushDeliveryQueue | undefined) =>
      deadLetters && configs && outbox && queue ? new PushDeliveryAdmin(deadLetters, configs, outbox, queue) : undefined,
    inject: [PushDeadLetters, PushConfigStore, RedisPushOutbox, PUSH_QUEUE],
  },
  {
    provide: A2A_PUSH_WORKER,
    // a class of `@nestjs/bullmq`'s (an optional peer): loaded with push on only
    useFactory: async (processor: OrderedPushDelivery | undefined, queue: PushDeliveryQueue | undefined, push: ResolvedPushOptions | undefined) =>
      processor && queue && push ? new (await import('./push/push-delivery.worker.js')).PushDeliveryWorker(processor, queue, push) : undefined,
    inject: [A2A_PUSH_PROCESSOR, PUSH_QUEUE, A2A_PUSH_OPTIONS],
  },
  {
    provide: TASK_EVENT_LISTENERS,
    useFactory: (relay: PushRelay | undefined) => (relay ? [relay] : []),
    inject: [PushRelay],
  },
  PushDeliveryLifecycle,
];
