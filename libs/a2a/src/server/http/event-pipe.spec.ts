/** EventPipe on a real HTTP server on 127.0.0.1: events as SSE frames, a failure as the last `event: error`, return() when the client leaves. */
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { TaskNotFoundError } from '../../protocol/errors.js';
import type { StreamResponse } from '../../protocol/types.js';
import { waitUntil } from '../../testing/wait-until.js';
import type { StreamEvent } from '../a2a-request-handler.js';
import type { ResolvedServerOptions } from '../server-options.js';
import { EventPipe } from './event-pipe.js';
import { REST_FORMAT } from './rest.binding.js';
import { SseStreams } from './sse-streams.js';
import type { ReceivingIterator, ResultReceiver } from '../../tasks/event-log-follower.js';

const working = (text: string): StreamResponse => ({
  statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING', message: { messageId: text, role: 'ROLE_AGENT', parts: [{ text }] } } },
});

/** Events, then their end, a failure or a wait that only return() ends; it says whether return() was called, and how many were taken. */
class Events implements AsyncIterator<StreamEvent> {
  returned = false;
  taken = 0;
  private wake?: (result: IteratorResult<StreamEvent>) => void;

  constructor(
    protected readonly list: StreamEvent[],
    private readonly then: Error | 'wait' | 'end',
  ) {}

  next(): Promise<IteratorResult<StreamEvent>> {
    if (this.returned) return Promise.resolve({ done: true, value: undefined });
    if (this.taken < this.list.length) return Promise.resolve({ done: false, value: this.list[this.taken++] });
    if (this.then === 'end') return Promise.resolve({ done: true, value: undefined });
    if (this.then === 'wait') return new Promise((resolve) => (this.wake = resolve));
    return Promise.reject(this.then);
  }

  async return(): Promise<IteratorResult<StreamEvent>> {
    this.returned = true;
    this.wake?.({ done: true, value: undefined });
    return { done: true, value: undefined };
  }
}

/** {@link Events} that also hand their next result to a receiver (as the logs' followers do); `next()` is not to be called. */
class ReceivingEvents extends Events implements ReceivingIterator<StreamEvent> {
  nextCalls = 0;
  waiting?: ResultReceiver<StreamEvent>;

  override next(): Promise<IteratorResult<StreamEvent>> {
    this.nextCalls++;
    return super.next();
  }

  nextTo(receiver: ResultReceiver<StreamEvent>): IteratorResult<StreamEvent> | undefined {
    if (this.returned) return { done: true, value: undefined };
    if (this.taken < this.list.length) return { done: false, value: this.list[this.taken++] };
    this.waiting = receiver;
    return undefined;
  }

  /** Gives the waiting receiver `event`. */
  give(event: StreamEvent): void {
    const receiver = this.waiting!;
    this.waiting = undefined;
    receiver.receive({ done: false, value: event });
  }

  override async return(): Promise<IteratorResult<StreamEvent>> {
    const receiver = this.waiting;
    this.waiting = undefined;
    const done = await super.return();
    receiver?.receive(done);
    return done;
  }
}

describe('EventPipe', () => {
  let server: Server | undefined;
  const streams = new SseStreams({ streaming: { heartbeatMs: 60_000, maxStreams: 10, maxStreamsPerCaller: 10 } } as ResolvedServerOptions);
  const logged: string[] = [];
  const logger = { error: (message: string) => logged.push(message) } as unknown as Logger;

  afterAll(() => streams.closeAll());

  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
    logged.length = 0;
  });

  /** Serves `events` as a stream (`seen` is shown each response first); resolves with the server's origin. */
  async function serve(events: Events, seen?: (res: ServerResponse) => void): Promise<string> {
    server = createServer((_req, res) => {
      seen?.(res);
      const stream = streams.reserve('caller', res);
      stream.open({});
      new EventPipe(stream, events, REST_FORMAT, logger).start();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
  }

  function read(origin: string): Promise<string> {
    return new Promise((resolve, reject) => {
      get(origin, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve(text));
      }).on('error', reject);
    });
  }

  it('writes each event as a frame with its seq, then ends the response', async () => {
    const events = new Events([{ seq: 1, event: working('a') }, { seq: 2, event: working('b') }], 'wait');
    const origin = await serve(events);
    setTimeout(() => void events.return(), 100);
    const text = await read(origin);
    expect(text).toBe(`id: 1\ndata: ${JSON.stringify(working('a'))}\n\nid: 2\ndata: ${JSON.stringify(working('b'))}\n\n`);
    expect(streams.size).toBe(0);
  });

  it('waits as the receiver of events that take one (no next(), no promise of its own), and writes what it is given', async () => {
    const events = new ReceivingEvents([{ seq: 1, event: working('a') }], 'wait');
    const origin = await serve(events);
    const text = read(origin);
    await waitUntil(() => events.waiting !== undefined);
    events.give({ seq: 2, event: working('b') });
    await waitUntil(() => events.waiting !== undefined);
    await events.return();
    expect(await text).toBe(`id: 1\ndata: ${JSON.stringify(working('a'))}\n\nid: 2\ndata: ${JSON.stringify(working('b'))}\n\n`);
    expect(events.nextCalls).toBe(0);
  });

  it("hears every open stream's response close through one listener, not a closure of its own each", async () => {
    const responses: ServerResponse[] = [];
    const events = [new Events([], 'wait'), new Events([], 'wait')];
    let served = 0;
    server = createServer((_req, res) => {
      responses.push(res);
      const stream = streams.reserve('caller', res);
      stream.open({});
      new EventPipe(stream, events[served++], REST_FORMAT, logger).start();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const clients = [0, 1].map(() => get(origin));
    await waitUntil(() => responses.length === 2);
    const [first, second] = responses.map((res) => res.listeners('close').filter((l) => l === streams.responseClosed));
    expect(first).toHaveLength(1);
    expect(second).toEqual(first);
    clients.forEach((c) => c.destroy());
    await waitUntil(() => events.every((e) => e.returned));
    expect(streams.size).toBe(0);
  });

  it('a stream closed by shutdown (closeAll) tells its waiting events to stop', async () => {
    const own = new SseStreams({ streaming: { heartbeatMs: 60_000, maxStreams: 10, maxStreamsPerCaller: 10 } } as ResolvedServerOptions);
    const events = new ReceivingEvents([{ seq: 1, event: working('a') }], 'wait');
    server = createServer((_req, res) => {
      const stream = own.reserve('caller', res);
      stream.open({});
      new EventPipe(stream, events, REST_FORMAT, logger).start();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const text = read(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    await waitUntil(() => events.waiting !== undefined);
    own.closeAll();
    expect(await text).toBe(`id: 1\ndata: ${JSON.stringify(working('a'))}\n\n`);
    await waitUntil(() => events.returned);
    expect(events.returned).toBe(true);
  });

  it('sends a failure of the events as the last event, `event: error`, in the binding shape; an A2A error is not logged', async () => {
    const events = new Events([{ seq: 1, event: working('a') }], new TaskNotFoundError('gone'));
    const text = await read(await serve(events));
    const frames = text.split('\n\n').filter(Boolean);
    expect(frames).toHaveLength(2);
    expect(frames[1]).toBe(`event: error\ndata: ${JSON.stringify(new TaskNotFoundError('gone').toRest())}`);
    expect(events.returned).toBe(true);
    expect(logged).toEqual([]);
  });

  it('answers an unexpected failure as an InternalError and logs its class only', async () => {
    const events = new Events([], new RangeError('SECRET internals'));
    const text = await read(await serve(events));
    expect(text).toMatch(/^event: error\ndata: \{"error":\{"code":500,"status":"INTERNAL"/);
    expect(text).not.toContain('SECRET');
    expect(logged).toEqual(['Stream failed unexpectedly: RangeError']);
  });

  it('tells the events to stop when the client leaves while they wait', async () => {
    const events = new Events([{ seq: 1, event: working('a') }], 'wait');
    const origin = await serve(events);
    await new Promise<void>((resolve) => {
      const req = get(origin, (res) => res.once('data', () => (req.destroy(), resolve())));
    });
    await waitUntil(() => events.returned);
    expect(events.returned).toBe(true);
    await waitUntil(() => streams.size === 0);
    expect(streams.size).toBe(0);
  });

  it('sends the headers, events that come together and the end in one write to the socket', async () => {
    const events = new Events([1, 2, 3].map((seq) => ({ seq, event: working(`e${seq}`) })), 'end');
    let writes = 0;
    const origin = await serve(events, (res) => {
      // what the socket hands to the kernel: one call per write (several chunks go in one _writev)
      const socket = res.socket as Socket & { _write: (...args: unknown[]) => void; _writev: (...args: unknown[]) => void };
      for (const method of ['_write', '_writev'] as const) {
        const own = socket[method].bind(socket);
        socket[method] = (...args: unknown[]) => (writes++, own(...args));
      }
    });
    const text = await read(origin);
    expect(text.split('\n\n').filter(Boolean)).toHaveLength(3);
    expect(writes).toBe(1);
  });

  it("sends each stream's own headers with the SSE ones, whichever stream came before", async () => {
    const extras: Array<Record<string, string>> = [{ 'A2A-Version': '1.0' }, { 'A2A-Version': '1.0', 'A2A-Extensions': 'https://example.com/ext' }, { 'A2A-Version': '1.0' }];
    let served = 0;
    server = createServer((_req, res) => {
      const stream = streams.reserve('caller', res);
      stream.open(extras[served++]);
      new EventPipe(stream, new Events([], 'end'), REST_FORMAT, logger).start();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const extra of extras) {
      const headers = await new Promise<IncomingMessage['headers']>((resolve, reject) => get(origin, (res) => (res.resume(), resolve(res.headers))).on('error', reject));
      expect(headers['content-type']).toBe('text/event-stream');
      expect(headers['a2a-version']).toBe('1.0');
      expect(headers['a2a-extensions']).toBe(extra['A2A-Extensions']);
    }
  });

  it('takes no more events than a client that does not read lets through: the socket, not the events at hand, sets the pace', async () => {
    const big = 'x'.repeat(10_000);
    const total = 2_000; // 20 MB, more than the kernel's buffers on both ends hold
    const events = new Events(Array.from({ length: total }, (_, i) => ({ seq: i + 1, event: working(`${i} ${big}`) })), 'end');
    const origin = await serve(events);
    const res = await new Promise<IncomingMessage>((resolve) => get(origin, resolve));
    res.pause();
    await waitUntil(() => events.taken > 0);
    let before = -1;
    // settled: nothing more is taken while the client does not read
    await waitUntil(async () => {
      const now = events.taken;
      await new Promise((resolve) => setTimeout(resolve, 100));
      return before === (before = now) && now === events.taken;
    });
    expect(events.taken).toBeLessThan(total / 2);
    res.setEncoding('utf8');
    let text = '';
    for await (const chunk of res) text += chunk;
    expect(text.split('\n\n').filter(Boolean)).toHaveLength(total);
    expect(events.taken).toBe(total);
  });
});
