/**
 * One `follow()` of a Redis event log, as the log's single blocking reader feeds it (see
 * `redis-event-log.ts`): the events the reader delivered, in order, and those it passed over read
 * back with XRANGE.
 */
import type { LoggedEvent } from '../event-log.js';
import { EventLogFollower, WAIT } from '../event-log-follower.js';

/** What the reader sees of one `follow()` call. */
export interface Follower {
  /** The next sequence number it yields. */
  readonly nextSeq: number;
  /** Events the reader delivered and the follower has not taken, in order; none while there are none. */
  queue?: LoggedEvent[];
  /** Events up to this seq exist in the stream; those not queued are read with XRANGE. */
  mustReadTo: number;
  /** Resumes the follower if it waits for the reader (or for its abort, or for close). */
  wake(): void;
}

/** A followed log: what the reader reads for it, and who gets what it reads. */
export interface Feed {
  readonly key: string;
  /** The last seq the reader has delivered; the next XREAD asks for entries after it. */
  cursor: number;
  readonly followers: Set<Follower>;
  /** Has an XREAD asked for this log yet? Until then nothing was delivered and the cursor may move back. */
  read: boolean;
}

/** What a follower asks of its log. */
export interface FollowedLog {
  readonly isClosed: boolean;
  subscribe(key: string, afterSeq: number, follower: Follower): Feed;
  unsubscribe(feed: Feed, follower: Follower): void;
  range(key: string, from: number, to: number): Promise<LoggedEvent[]>;
  warnGap(from: number, to: number): void;
}

/**
 * One `follow()` of a Redis log: what the reader delivers, in order, and what it passed over read
 * with XRANGE. It is in its feed's followers for its whole life.
 */
export class RedisFollower extends EventLogFollower implements Follower {
  nextSeq: number;
  /** Made when the reader delivers, let go once taken: a waiting follower holds no array (issue 14). */
  queue?: LoggedEvent[];
  mustReadTo = 0;
  /** An XRANGE page being yielded. */
  private page?: LoggedEvent[];
  private feed?: Feed;

  /** `key` is not kept: the feed's own is used, one string per followed task rather than one per follower (issue 14). */
  constructor(
    private readonly log: FollowedLog,
    key: string,
    afterSeq: number,
    signal: AbortSignal | undefined,
  ) {
    super(signal);
    this.nextSeq = afterSeq + 1;
    if (this.start()) this.feed = log.subscribe(key, afterSeq, this);
  }

  protected override closed(): boolean {
    return this.log.isClosed;
  }

  protected take(): IteratorResult<LoggedEvent> | Promise<void> | typeof WAIT {
    const { page } = this;
    while (page && page.length > 0) {
      const logged = page.shift()!;
      if (logged.seq !== this.nextSeq) continue;
      this.nextSeq++;
      return { done: false, value: logged };
    }
    this.page = undefined;
    const { queue } = this;
    while (queue && queue.length > 0 && queue[0].seq < this.nextSeq) queue.shift(); // read meanwhile with XRANGE
    const head = queue?.[0];
    const due = head?.seq === this.nextSeq;
    if (due) queue!.shift();
    if (queue?.length === 0) this.queue = undefined;
    if (due) {
      this.nextSeq++;
      return { done: false, value: head };
    }
    // events before the head of the queue (or before what the reader has passed) are in the stream
    const gapEnd = head ? head.seq - 1 : this.mustReadTo;
    return gapEnd >= this.nextSeq ? this.readGap(gapEnd) : WAIT;
  }

  private async readGap(gapEnd: number): Promise<void> {
    const from = this.nextSeq;
    // take() runs only while following, so the feed is there
    const page = await this.log.range(this.feed!.key, from, gapEnd);
    if (page.length === 0 || page[0].seq !== from) {
      // the entries are gone (the log expired and started again): say so and go on from what exists
      this.log.warnGap(from, gapEnd);
      this.nextSeq = page[0]?.seq ?? gapEnd + 1;
    }
    this.page = page;
  }

  protected stop(): void {
    if (this.feed) this.log.unsubscribe(this.feed, this);
    this.feed = undefined;
    this.queue = undefined;
    this.page = undefined;
  }
}
