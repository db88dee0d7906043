/**
 * The load generator of the scenarios whose servers run in processes of their own: undici pools
 * with keep-alive (one connection per request in flight, opened once), time-bounded rounds in which
 * every answer is checked, and SSE subscribers that check every event each stream receives.
 *
 * This folder is not `bench/scenarios/`, so `run.ts` does not take these files for scenarios.
 */
import { performance } from 'node:perf_hooks';
import { createParser } from 'eventsource-parser';
import { Pool } from 'undici';
import { KEEP_ALIVE_MS } from './http.js';
import { rpcResultPrefix, type HeldTaskEvents, type WireRequest } from './wire.js';

const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** One round: how many operations completed in how long, and their latencies. */
export interface Round {
  readonly ops: number;
  readonly elapsedMs: number;
  readonly perSec: number;
  readonly latenciesMs: Float64Array;
}

/** Keep-alive pools, one per server and number in flight, opened once and reused across rounds. */
export class LoadClient {
  private readonly pools = new Map<string, Pool>();

  pool(origin: string, inFlight: number): Pool {
    const key = `${origin} ${inFlight}`;
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new Pool(origin, { connections: inFlight, pipelining: 1, keepAliveTimeout: KEEP_ALIVE_MS, keepAliveMaxTimeout: KEEP_ALIVE_MS });
      this.pools.set(key, pool);
    }
    return pool;
  }

  /** Sends one request and checks its answer; resolves to the answer's body. */
  async send(origin: string, request: { path: string; body: string }, inFlight = 1): Promise<{ status: number; body: string }> {
    const { statusCode, body } = await this.pool(origin, inFlight).request({ path: request.path, method: 'POST', headers: HEADERS, body: request.body });
    return { status: statusCode, body: await body.text() };
  }

  /**
   * Runs `request(seq)` with `inFlight` at once for `limit.ms` (the operations started by then are
   * finished and counted) or `limit.ops` operations, checking every answer; `seq` counts on from `firstSeq`.
   */
  async round(origin: string, request: (seq: number) => WireRequest, inFlight: number, limit: { ms: number } | { ops: number }, firstSeq: number): Promise<Round> {
    const pool = this.pool(origin, inFlight);
    const latencies: number[] = [];
    let seq = firstSeq;
    let failure: unknown;
    const started = performance.now();
    const more = 'ms' in limit ? (deadline => () => performance.now() < deadline)(started + limit.ms) : () => seq - firstSeq < limit.ops;
    const worker = async () => {
      while (failure === undefined && more()) {
        const wire = request(seq++);
        const sent = performance.now();
        try {
          const { statusCode, body } = await pool.request({ path: wire.path, method: 'POST', headers: HEADERS, body: wire.body });
          wire.check(statusCode, await body.text());
        } catch (error) {
          failure ??= error;
          return;
        }
        latencies.push(performance.now() - sent);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
    if (failure !== undefined) throw failure;
    const elapsedMs = performance.now() - started;
    return { ops: latencies.length, elapsedMs, perSec: (latencies.length * 1000) / elapsedMs, latenciesMs: Float64Array.from(latencies) };
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
    this.pools.clear();
  }
}

// ---------------------------------------------------------------- SSE subscribers

/** What one SubscribeToTask stream received by its end. */
export interface StreamTally {
  readonly events: number;
  /** The `step-<i>` updates received, each in its place. */
  readonly steps: number;
  readonly completed: boolean;
}

/** A subscriber: resolves `first` at its first event, `done` when the stream ends. */
export interface Subscriber {
  readonly first: Promise<void>;
  readonly done: Promise<StreamTally>;
}

/**
 * Opens one SSE stream (POST `request` on `pool`, which needs a connection per open stream) and
 * checks every event it receives against `expected`: a JSON-RPC result of request `id`, the held
 * task's events in their order (the task, its steps, COMPLETED, nothing after). A stream that ends
 * early is tallied short; a wrong event, or one out of its place, fails the stream.
 */
export function subscribe(pool: Pool, request: { path: string; body: string }, id: number, expected: HeldTaskEvents): Subscriber {
  let markFirst!: () => void;
  let failFirst!: (error: unknown) => void;
  const first = new Promise<void>((resolve, reject) => {
    markFirst = resolve;
    failFirst = reject;
  });
  first.catch(() => undefined); // the failure is done's too, and reported there
  const done = (async (): Promise<StreamTally> => {
    const envelope = rpcResultPrefix(id);
    let events = 0;
    const sse = createParser({
      onEvent: ({ data }) => {
        const place = expected.placeOf(data, envelope, id);
        if (place !== events) throw new Error(`SubscribeToTask: event ${events} of request ${id} is the one expected at ${place}: ${data.slice(0, 300)}`);
        if (events++ === 0) markFirst();
      },
    });
    try {
      const { statusCode, body } = await pool.request({ path: request.path, method: 'POST', headers: HEADERS, body: request.body, bodyTimeout: 0, headersTimeout: 0 });
      if (statusCode !== 200) throw new Error(`SubscribeToTask: HTTP ${statusCode} ${(await body.text()).slice(0, 300)}`);
      const utf8 = new TextDecoder();
      for await (const chunk of body) sse.feed(utf8.decode(chunk, { stream: true }));
      if (events === 0) throw new Error('SubscribeToTask: the stream ended without an event');
      const completed = events === expected.completedPlace + 1;
      return { events, steps: completed ? expected.steps : events - 1, completed };
    } catch (error) {
      failFirst(error);
      throw error;
    }
  })();
  return { first, done };
}

/** A pool for `streams` SSE streams to `origin` at once (one connection each). */
export function streamPool(origin: string, streams: number): Pool {
  return new Pool(origin, { connections: streams, pipelining: 1, keepAliveTimeout: KEEP_ALIVE_MS, keepAliveMaxTimeout: KEEP_ALIVE_MS });
}
