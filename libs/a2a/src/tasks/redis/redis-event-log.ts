/**
 * The event log on Redis Streams, shared by every instance of an app: one stream per task, entry id
 * `<seq>-0`, so the stream's own order is the log's order and a sequence number is an entry id.
 *
 * Live followers are served by ONE blocking reader per instance: a dedicated connection running
 * `XREAD BLOCK 0 STREAMS <every followed log>`, whose results are fanned out in process to every
 * local follower of each task. When the set of followed logs changes, the blocked read is interrupted
 * with `CLIENT UNBLOCK` (from the command connection) and issued again with the new set. So an
 * instance uses two connections however many streams it serves.
 */
import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { StreamResponse } from '../../protocol/types.js';
import { isTerminalEvent, type EventLog, type LoggedEvent } from '../event-log.js';
import { ConcurrentTaskUpdateError } from '../task-store.js';
import { redisCall } from '../../redis/redis-call.js';
import { DEFAULT_KEY_PREFIX } from '../../redis/redis-keys.js';
import { RedisTaskKeys } from './redis-task-keys.js';
import { assertRedisBackendUsable, type RedisTaskBackendOptions } from './redis-task-options.js';
import { APPEND_EVENT } from './redis-task-scripts.js';
import { streamsOf, toLoggedEvent } from './redis-stream-replies.js';
import { RedisFollower, type Feed, type Follower } from './redis-follower.js';

/** Entries one XREAD takes per stream, and one XRANGE page. */
const READ_BATCH = 100;
/**
 * Events buffered per follower that has not taken them yet. A slower follower is not buffered
 * further: it reads what it missed from the stream itself when it gets there (XRANGE).
 */
const MAX_BUFFERED = 1_000;
/** Reader back-off after a failure: doubles from the first to the last. */
const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 2_000;
/** How long `close()` waits for the reader loop to notice; it never waits longer. */
const CLOSE_WAIT_MS = 1_000;
/** CLIENT UNBLOCK attempts while the XREAD is still on its way to the server. */
const UNBLOCK_ATTEMPTS = 200;

/** The XREAD in flight. */
interface PendingRead {
  readonly clientId: number;
  readonly connection: number;
  readonly setVersion: number;
  settled: boolean;
  /** CLIENT UNBLOCK got it; the reader issues the next read with the current set. */
  interrupted: boolean;
}

/**
 * Event logs in Redis Streams. `redis` is the app's command connection (never closed here); the
 * blocking reader is one `redis.duplicate()` made on the first `follow()` and closed by `close()`.
 * Give `redis` the options of {@link REDIS_FAIL_FAST_OPTIONS} so commands fail instead of hanging
 * while Redis is down.
 * @publicApi
 */
export class RedisEventLog implements EventLog {
  private readonly logger = new Logger(RedisEventLog.name);
  private readonly keys: RedisTaskKeys;
  private readonly ttlMs: number;
  /** Followed logs by stream key. */
  private readonly feeds = new Map<string, Feed>();
  private closed = false;

  private reader?: Redis;
  private readerLoop?: Promise<void>;
  /** Counts the reader's connections: bumped when one closes, so a client id is never used on the next. */
  private connection = 0;
  private clientId?: { readonly id: number; readonly connection: number };
  /** Bumped whenever the set of followed logs changes. */
  private setVersion = 0;
  private current?: PendingRead;
  private kickScheduled = false;
  private interrupting = false;
  /** Resumes the reader loop while it waits (for work, for a connection, or out a back-off). */
  private resumeReader?: () => void;

  constructor(
    private readonly redis: Redis,
    options: RedisTaskBackendOptions,
  ) {
    assertRedisBackendUsable(redis, options);
    this.keys = new RedisTaskKeys(options.keyPrefix ?? DEFAULT_KEY_PREFIX);
    this.ttlMs = options.retention.ttlMs;
  }

  async append(taskId: string, event: StreamResponse, expectedSeq: number): Promise<number> {
    const seq = Number(
      await redisCall(() =>
        APPEND_EVENT.run(this.redis, [this.keys.log(taskId)], [expectedSeq, JSON.stringify(event), isTerminalEvent(event) ? '1' : '0', this.ttlMs]),
      ),
    );
    if (seq < 0) throw new ConcurrentTaskUpdateError(taskId);
    return seq;
  }

  async read(taskId: string, fromSeq: number, toSeq: number): Promise<LoggedEvent[]> {
    if (toSeq < fromSeq) return [];
    return redisCall(() => this.range(this.keys.log(taskId), Math.max(1, fromSeq), toSeq));
  }

  /** Its followers are `EventLogFollower`s: `return()` ends one at once. */
  readonly followEndsOnReturn = true;

  /** A `RedisFollower` (an `EventLogFollower`: no generator frame per open stream). */
  follow(taskId: string, afterSeq: number, signal?: AbortSignal): AsyncIterableIterator<LoggedEvent> {
    return new RedisFollower(this, this.keys.log(taskId), Number.isFinite(afterSeq) ? Math.max(0, Math.floor(afterSeq)) : 0, signal);
  }

  /** @internal Is the log closed (its followers end)? */
  get isClosed(): boolean {
    return this.closed;
  }

  /** @internal A follower starts: the reader delivers to it what it reads for `key` from now on. */
  subscribe(key: string, afterSeq: number, follower: Follower): Feed {
    let feed = this.feeds.get(key);
    if (!feed) {
      feed = { key, cursor: afterSeq, followers: new Set(), read: false };
      this.feeds.set(key, feed);
      this.followedSetChanged();
    } else if (!feed.read && afterSeq < feed.cursor) {
      // nothing delivered yet: starting the read earlier serves this follower from the reader too
      feed.cursor = afterSeq;
    }
    // the reader delivers everything after its cursor from now on; what it passed already is in the stream
    follower.mustReadTo = feed.cursor;
    feed.followers.add(follower);
    return feed;
  }

  /** @internal */
  unsubscribe(feed: Feed, follower: Follower): void {
    feed.followers.delete(follower);
    if (feed.followers.size === 0 && this.feeds.get(feed.key) === feed) {
      this.feeds.delete(feed.key);
      this.followedSetChanged();
    }
  }

  /** @internal Entries `from..to` of a stream, at most one page. */
  async range(key: string, from: number, to: number): Promise<LoggedEvent[]> {
    const entries = await this.redis.xrange(key, `${from}-0`, `${to}-0`, 'COUNT', READ_BATCH);
    return entries.map(([id, fields]) => toLoggedEvent(id, fields));
  }

  /** @internal */
  warnGap(from: number, to: number): void {
    this.logger.warn(`Events ${from}..${to} of a followed log no longer exist; continuing after them`);
  }

  /** The blocking reader is connected, or not needed yet (it starts with the first follower). */
  readerConnected(): boolean {
    return !this.closed && (this.reader === undefined || this.reader.status === 'ready');
  }

  /**
   * Ends every follower quietly, stops the reader and closes its connection. Returns promptly even
   * while Redis is unreachable. The command connection belongs to the caller and stays open.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const feed of this.feeds.values()) for (const follower of feed.followers) follower.wake();
    this.resumeReader?.();
    const reader = this.reader;
    if (!reader) return;
    reader.disconnect(); // rejects the blocked XREAD at once; no QUIT round trip to a server that may be gone
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.readerLoop, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /** How many logs the reader follows now (for tests and metrics). */
  get followedLogs(): number {
    return this.feeds.size;
  }

  // ---- followers --------------------------------------------------------------------------------

  private deliver(feed: Feed, logged: LoggedEvent): void {
    if (logged.seq <= feed.cursor) return;
    feed.cursor = logged.seq;
    feed.read = true; // a read issued for an earlier feed of this log may deliver to this one
    for (const follower of feed.followers) {
      if (logged.seq < follower.nextSeq) continue;
      const queue = (follower.queue ??= []);
      if (queue.length < MAX_BUFFERED) queue.push(logged);
      else follower.mustReadTo = Math.max(follower.mustReadTo, logged.seq);
      follower.wake();
    }
  }

  // ---- the reader -------------------------------------------------------------------------------

  /** Coalesces changes of one tick (10,000 followers joining) into one re-issued read. */
  private followedSetChanged(): void {
    this.setVersion++;
    if (this.kickScheduled || this.closed) return;
    this.kickScheduled = true;
    setImmediate(() => {
      this.kickScheduled = false;
      if (this.closed) return;
      this.ensureReader();
      this.resumeReader?.();
      void this.interruptStaleRead();
    });
  }

  private ensureReader(): void {
    if (this.reader || this.closed) return;
    const base = this.redis.options.connectionName;
    const reader = this.redis.duplicate({
      connectionName: `${base ? `${base}:` : ''}a2a-event-reader`,
      lazyConnect: false,
      // a command issued while disconnected, or in flight when the connection drops, fails at once:
      // the loop then re-reads its client id on the new connection before blocking again
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      // a client-side timeout on BLOCK 0 would leave the server-side read blocked, queueing the next one
      commandTimeout: undefined,
      blockingTimeout: undefined,
      // nothing to flush on close: do not keep a socket that never connected (Redis down) for 2 s
      disconnectTimeout: 100,
    });
    reader.on('error', () => {
      // reported by the loop when a read fails; without a listener ioredis prints every reconnect error
    });
    reader.on('close', () => {
      this.connection++;
      this.resumeReader?.();
    });
    reader.on('ready', () => this.resumeReader?.());
    this.reader = reader;
    this.readerLoop = this.runReader(reader);
  }

  private async runReader(reader: Redis): Promise<void> {
    let failures = 0;
    while (!this.closed) {
      try {
        if (this.feeds.size === 0) {
          await this.pause();
          continue;
        }
        if (reader.status !== 'ready') {
          if (reader.status === 'end') reader.connect().catch(() => undefined); // its retry strategy gave up
          await this.pause(RETRY_MAX_MS);
          continue;
        }
        if (this.clientId?.connection !== this.connection) {
          const connection = this.connection;
          const id = Number(await reader.client('ID'));
          if (connection === this.connection) this.clientId = { id, connection };
          continue;
        }
        const reply = await this.blockingRead(reader, this.clientId.id);
        if (failures > 0) this.logger.log('The event log reader is reading again');
        failures = 0;
        this.dispatch(reply);
      } catch (error) {
        if (this.closed) return;
        if (failures === 0) this.logger.warn(`The event log reader failed, retrying: ${(error as Error).message}`);
        failures++;
        await this.pause(Math.min(RETRY_MIN_MS * 2 ** (failures - 1), RETRY_MAX_MS));
      }
    }
  }

  /** One blocking read over every followed log, from each one's cursor. */
  private async blockingRead(reader: Redis, clientId: number): Promise<unknown> {
    const feeds = [...this.feeds.values()];
    const read: PendingRead = { clientId, connection: this.connection, setVersion: this.setVersion, settled: false, interrupted: false };
    for (const feed of feeds) feed.read = true;
    this.current = read;
    try {
      return await reader.xread('COUNT', READ_BATCH, 'BLOCK', 0, 'STREAMS', ...feeds.map((f) => f.key), ...feeds.map((f) => `${f.cursor}-0`));
    } finally {
      read.settled = true;
    }
  }

  /**
   * Ends the blocked read when the followed set changed since it was issued; the reader loop then
   * issues the next one with the set as it is by then. CLIENT UNBLOCK answers 0 while the XREAD is
   * still on its way to the server, hence the retries. A change arriving meanwhile is picked up here
   * too: each attempt looks at the read in flight at that moment.
   */
  private async interruptStaleRead(): Promise<void> {
    if (this.interrupting) return;
    this.interrupting = true;
    try {
      for (let attempt = 0; attempt < UNBLOCK_ATTEMPTS; attempt++) {
        const read = this.current;
        if (!read || read.settled || read.interrupted || read.setVersion === this.setVersion || this.closed) return;
        if (read.connection !== this.connection) return; // that connection is gone, and the read with it
        if (Number(await this.redis.client('UNBLOCK', read.clientId)) === 1) {
          read.interrupted = true;
          return;
        }
        await delay(Math.min(2 ** attempt, 50));
      }
      this.logger.warn('Could not interrupt the event log reader; it picks up the new set of logs with its next event');
    } catch {
      // the command connection is down: the reader's connection most likely too, and its read fails with it
    } finally {
      this.interrupting = false;
    }
  }

  private dispatch(reply: unknown): void {
    for (const [key, entries] of streamsOf(reply)) {
      const feed = this.feeds.get(key);
      if (!feed) continue; // unfollowed while the read was blocked
      for (const [id, fields] of entries) this.deliver(feed, toLoggedEvent(id, fields));
    }
  }

  /** Waits until kicked, closed, a connection event, or `ms` passed. */
  private pause(ms?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        if (this.resumeReader === done) this.resumeReader = undefined;
        resolve();
      };
      if (ms !== undefined) timer = setTimeout(done, ms);
      this.resumeReader = done;
      if (this.closed) done();
    });
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
