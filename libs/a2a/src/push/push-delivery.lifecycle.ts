/**
 * Starts the delivery worker once the app is up, and stops it gracefully: the worker first (its
 * deliveries in flight finish, within a bound), the queue last, after the running tasks wrote their
 * final events (which are in the push outbox with them, and delivered by whichever instance runs next).
 */
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import { A2A_PUSH_OPTIONS, A2A_PUSH_PROCESSOR, A2A_PUSH_QUEUE } from '../config/a2a.constants.js';
import type { OrderedPushDelivery } from './ordered-push-delivery.js';
import type { PushDeliveryQueue } from './push-delivery-queue.js';
import type { ResolvedPushOptions } from './push-options.js';
import { PushRelay } from './push-relay.js';

/** @internal */
@Injectable()
export class PushDeliveryLifecycle implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('A2A');

  constructor(
    @Inject(A2A_PUSH_OPTIONS) private readonly options: ResolvedPushOptions | undefined,
    @Inject(A2A_PUSH_QUEUE) private readonly queue: PushDeliveryQueue | undefined,
    @Inject(A2A_PUSH_PROCESSOR) private readonly processor: OrderedPushDelivery | undefined,
    @Inject(PushRelay) private readonly relay: PushRelay | undefined,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.queue || !this.processor || !this.options) return;
    if (!this.options.encryptionKey) {
      this.logger.warn('Push notifications: no push.encryptionKey, so webhook credentials and tokens are stored in Redis unencrypted');
    }
    await this.queue.startWorker(this.processor);
    this.relay?.start();
  }

  /** The worker stops taking jobs; those in flight finish (bounded). */
  async onModuleDestroy(): Promise<void> {
    await this.queue?.stopWorker();
  }

  /** After the HTTP server and the task manager are done: no event can be enqueued any more. */
  async onApplicationShutdown(): Promise<void> {
    await this.relay?.close();
    await this.queue?.close();
    await this.processor?.close();
  }
}
