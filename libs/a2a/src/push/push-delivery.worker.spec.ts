import { describe, expect, it } from '@jest/globals';
import type { Job } from 'bullmq';
import { getEventListeners, getMaxListeners } from 'node:events';
import type { PushDeliveryQueue, PushJobProcessor, PushJobRun } from './push-delivery-queue.js';
import { PushDeliveryWorker } from './push-delivery.worker.js';
import type { PushJobData, PushJobOutcome } from './push-job.js';

const CONCURRENCY = 16; // the default

/** Holds every run until released, listening on the worker's abort signal as a webhook request does. */
class HoldingProcessor implements PushJobProcessor {
  readonly signals: AbortSignal[] = [];
  private releases: Array<() => void> = [];

  process(_job: PushJobRun, signal: AbortSignal): Promise<PushJobOutcome> {
    this.signals.push(signal);
    const onAbort = () => undefined;
    signal.addEventListener('abort', onAbort, { once: true });
    return new Promise((resolve) =>
      this.releases.push(() => {
        signal.removeEventListener('abort', onAbort);
        resolve('delivered');
      }),
    );
  }

  nextDelay(): number {
    return 0;
  }

  release(): void {
    this.releases.forEach((release) => release());
    this.releases = [];
  }
}

const job = (i: number) => ({ data: { scope: { agent: 'a', tenant: '', subject: 's' }, taskId: `t${i}`, seq: 1, configId: 'c' }, attemptsMade: 0, opts: {}, timestamp: Date.now() }) as unknown as Job<PushJobData, PushJobOutcome>;

describe('PushDeliveryWorker', () => {
  it('lets every delivery of its concurrency listen on its abort signal without a leak warning', async () => {
    const processor = new HoldingProcessor();
    // the queue is only used when the worker stops
    const worker = new PushDeliveryWorker(processor, {} as PushDeliveryQueue, { concurrency: CONCURRENCY, shutdownTimeoutMs: 0, retrySchedule: [0] });
    const runs = Array.from({ length: CONCURRENCY }, (_, i) => worker.process(job(i)));
    await new Promise((resolve) => setImmediate(resolve));
    const signal = processor.signals[0];
    expect(processor.signals.every((s) => s === signal)).toBe(true);
    expect(getEventListeners(signal, 'abort')).toHaveLength(CONCURRENCY);
    // node warns of a possible leak once listeners exceed the limit (10 unless raised)
    expect(getMaxListeners(signal)).toBeGreaterThanOrEqual(CONCURRENCY);
    processor.release();
    await expect(Promise.all(runs)).resolves.toEqual(Array(CONCURRENCY).fill('delivered'));
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});
