/**
 * A stream whose client leaves stops following its task's log at once, not at the task's next
 * event (issue 14): the module's own logs end a follow on its iterator's `return()`
 * (`EventLog.followEndsOnReturn`), and a host's log written as an async generator, which does not,
 * is given a signal that aborts when the client leaves.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { A2AModule, InMemoryTaskBackend, type EventLog, type LoggedEvent, type TaskBackend } from 'nestjs-a2a';
import { waitUntil } from 'nestjs-a2a/testing';
import { startApp } from './support/custom-app.js';
import { WaitingAgent } from './support/waiting-agent.js';
import { describeOnEachPlatform } from './support/platforms.js';
import type { RunningApp } from './support/demo-app.js';
import { V1, userMessage } from './support/wire-client.js';

/** A host's own log: the in-memory one behind a `follow` written as an async generator, counting its open follows. */
class GeneratorLog implements EventLog {
  open = 0;
  readonly signals: Array<AbortSignal | undefined> = [];

  constructor(private readonly inner: EventLog) {}

  append(...args: Parameters<EventLog['append']>) {
    return this.inner.append(...args);
  }

  async *follow(taskId: string, afterSeq: number, signal?: AbortSignal): AsyncIterable<LoggedEvent> {
    this.signals.push(signal);
    this.open++;
    try {
      yield* this.inner.follow(taskId, afterSeq, signal);
    } finally {
      this.open--;
    }
  }
}

/** Opens SendStreamingMessage over REST; resolves with a function that drops the connection, once two events (the task, WORKING) arrived. */
function streamUntilWorking(url: string): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/a2a/rest/message:stream`, { method: 'POST', agent: false, headers: { ...V1, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (text.split('\n\n').filter((frame) => frame.includes('data:')).length >= 2) resolve(() => req.destroy());
      });
      res.on('error', () => undefined);
    });
    req.on('error', () => undefined);
    req.on('close', () => reject(new Error('the stream closed before WORKING')));
    req.end(JSON.stringify({ message: userMessage('wait') }));
  });
}

describeOnEachPlatform('a stream whose client leaves', () => {
  let app: RunningApp | undefined;
  let backend: InMemoryTaskBackend;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function start(taskBackend: TaskBackend): Promise<RunningApp> {
    app = await startApp(A2AModule.forRoot({ taskBackend }), [WaitingAgent], { bodyParser: false, logger: false });
    return app;
  }

  it("stops its follower of the module's own log at once, with no signal (the task goes on)", async () => {
    backend = new InMemoryTaskBackend();
    const log = backend.log as EventLog & { waitingFollowers: number };
    expect(log.followEndsOnReturn).toBe(true);
    const { url } = await start(backend);
    const leave = await streamUntilWorking(url);
    await waitUntil(() => log.waitingFollowers === 1);
    expect(log.waitingFollowers).toBe(1);
    leave();
    await waitUntil(() => log.waitingFollowers === 0, { attempts: 60 });
    expect(log.waitingFollowers).toBe(0);
  });

  it("gives a host's generator log a signal, which aborts when the client leaves: its follow ends at once", async () => {
    backend = new InMemoryTaskBackend();
    const hostLog = new GeneratorLog(backend.log);
    const { url } = await start({ store: backend.store, log: hostLog, coordinator: backend.coordinator, commit: (...args) => backend.commit(...args), admit: (...args) => backend.admit(...args), close: () => backend.close() });
    const leave = await streamUntilWorking(url);
    expect(hostLog.open).toBe(1);
    expect(hostLog.signals[0]).toBeInstanceOf(AbortSignal);
    leave();
    await waitUntil(() => hostLog.open === 0, { attempts: 60 });
    expect(hostLog.open).toBe(0);
    expect(hostLog.signals[0]?.aborted).toBe(true);
  });
});
