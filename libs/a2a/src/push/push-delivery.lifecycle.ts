/**
 * Starts the delivery worker once the app is up, and stops it gracefully: the worker first (its
 * deliveries in flight finish, within a bound), the relay last, after the running tasks wrote their
 * final events (which are in the push outbox with them, and delivered by whichever instance runs
 * next). The queue is closed by `@nestjs/bullmq` after that.
 */
import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import { A2A_PUSH_OPTIONS, A2A_PUSH_PROCESSOR, A2A_PUSH_QUEUE, A2A_PUSH_WORKER } from '../config/a2a.constants.js';
import type { OrderedPushDelivery } from './ordered-push-delivery.js';
import type { PushDeliveryQueue } from './push-delivery-queue.js';
import type { PushDeliveryWorker } from './push-delivery.worker.js';
import type { ResolvedPushOptions } from './push-options.js';
import { PushRelay } from './push-relay.js';

/** @internal */
@Injectable()
export class PushDeliveryLifecycle implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('A2A');

  constructor(
    @Inject(A2A_PUSH_OPTIONS) private readonly options: ResolvedPushOptions | undefined,
    @Inject(A2A_PUSH_WORKER) private readonly worker: PushDeliveryWorker | undefined,
    @Inject(A2A_PUSH_PROCESSOR) private readonly processor: OrderedPushDelivery | undefined,
    @Inject(PushRelay) private readonly relay: PushRelay | undefined,
    @Optional() @Inject(A2A_PUSH_QUEUE) private readonly queue: PushDeliveryQueue | undefined,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.worker || !this.options) return;
    if (!this.options.encryptionKey) {
      this.logger.warn('Push notifications: no push.encryptionKey, so webhook credentials and tokens are stored in Redis unencrypted');
    }
    this.worker.start();
    this.relay?.start();
  }

  /** The worker stops taking jobs; those in flight finish (bounded). */
  async onModuleDestroy(): Promise<void> {
    await this.worker?.stop();
  }

  /** After the HTTP server and the task manager are done: no event can be enqueued any more. */
  async onApplicationShutdown(): Promise<void> {
    await this.relay?.close();
    // the queue's connection may end now rather than wait for a Redis that is gone
    this.queue?.connection.giveUp();
    await this.processor?.close();
  }
}
