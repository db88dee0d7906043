/**
 * SubscribeToTask on one held task (the `hold` agent text, ./wire.ts): the task is started and
 * reaches WORKING, `streams` subscribers open and get their first event, then the server releases
 * the task, which publishes `steps` updates and COMPLETED; every stream is checked for all of them,
 * in order (./wire.ts, `HeldTaskEvents`).
 * The fan-out (side-by-side) and open-streams scenarios share it.
 *
 * This folder is not `bench/scenarios/`, so `run.ts` does not take these files for scenarios.
 */
import { performance } from 'node:perf_hooks';
import type { Pool } from 'undici';
import { streamPool, subscribe, type LoadClient, type Subscriber } from './load.js';
import type { ServerProcess } from './server-process.js';
import { HeldTaskEvents, holdRequest, subscribeRequest } from './wire.js';

/** How long opening the streams or delivering the events may take before the run fails. */
const DEADLINE_MS = 300_000;

export interface HeldTaskStreams {
  /** Releases the task and waits for every stream to end; resolves to the time that took and the streams that missed events. */
  releaseAndTally(): Promise<{ elapsedMs: number; missed: number; example?: string }>;
  close(): Promise<void>;
}

/**
 * Starts a held task on `server` and opens `streams` subscribers on it, `batch` at a time (each
 * batch waits for its streams' first events). `seq` gives unique JSON-RPC ids.
 */
export async function streamsOnHeldTask(client: LoadClient, server: ServerProcess, streams: number, steps: number, seq: () => number, batch = streams): Promise<HeldTaskStreams> {
  const hold = holdRequest(seq(), steps);
  const { status, body } = await client.send(server.origin, hold);
  const taskId = hold.taskId(status, body);
  await server.held(1);
  const expected = new HeldTaskEvents(taskId, steps);
  const pool: Pool = streamPool(server.origin, streams);
  const subscribers: Subscriber[] = [];
  try {
    for (let opened = 0; opened < streams; opened += batch) {
      const next = Array.from({ length: Math.min(batch, streams - opened) }, () => {
        const id = seq();
        return subscribe(pool, subscribeRequest(id, taskId), id, expected);
      });
      subscribers.push(...next);
      await withDeadline(Promise.all(next.map((s) => s.first)), `opening ${streams} streams`);
    }
  } catch (error) {
    await server.release();
    await pool.destroy();
    throw error;
  }
  return {
    async releaseAndTally() {
      const started = performance.now();
      await server.release();
      const tallies = await withDeadline(Promise.all(subscribers.map((s) => s.done)), `delivering ${steps + 1} events to ${streams} streams`);
      const elapsedMs = performance.now() - started;
      const short = tallies.filter((t) => t.steps !== steps || !t.completed);
      const example = short[0] && `one got ${short[0].steps} of ${steps} steps, completed: ${short[0].completed}`;
      return { elapsedMs, missed: short.length, example };
    },
    close: () => pool.close(),
  };
}

function withDeadline<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done after ${DEADLINE_MS} ms`)), DEADLINE_MS);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
