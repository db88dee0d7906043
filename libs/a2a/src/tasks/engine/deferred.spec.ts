import { describe, expect, it } from '@jest/globals';
import { Eventual } from './deferred.js';

/** Lets pending promise callbacks run. */
const drain = () => new Promise((resolve) => setImmediate(resolve));

describe('Eventual', () => {
  it('hands its value to whoever asks, before or after it comes; the first outcome wins', async () => {
    const early = new Eventual<string>();
    const asked = early.promise;
    early.resolve('first');
    early.resolve('second');
    early.reject(new Error('too late'));
    await expect(asked).resolves.toBe('first');
    await expect(early.promise).resolves.toBe('first');

    const late = new Eventual<string>();
    late.resolve('known');
    await expect(late.promise).resolves.toBe('known');
  });

  it('tells its value at once once it has come; nothing before, nothing for a failure', () => {
    const value = new Eventual<string>();
    expect(value.now()).toBeUndefined();
    value.resolve('here');
    value.resolve('later');
    expect(value.now()).toBe('here');
    const failed = new Eventual<string>();
    failed.reject(new Error('refused'));
    failed.resolve('too late');
    expect(failed.now()).toBeUndefined();
  });

  it('hands its failure to whoever asks, and raises no unhandled rejection when nobody does', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const failed = new Eventual<string>();
      failed.reject(new Error('refused'));
      await expect(failed.promise).rejects.toThrow('refused');

      new Eventual<string>().reject(new Error('nobody asks'));
      const waited = new Eventual<string>();
      void waited.promise; // asked, and then nobody handles it
      waited.reject(new Error('asked but unhandled'));
      void new Eventual<string>().promise;
      const readOnly = new Eventual<string>();
      readOnly.reject(new Error('read after, unhandled'));
      void readOnly.promise;
      await drain();
      await drain();
    } finally {
      process.off('unhandledRejection', record);
    }
    expect(unhandled).toEqual([]);
  });
});
