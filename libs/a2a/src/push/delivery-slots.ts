/**
 * Fairness between receivers and callers (per instance): how many deliveries may be in flight at
 * once to one receiver host and for one caller. A delivery that finds no slot free does not hold a
 * worker while it waits: its job steps aside (delayed a moment, no attempt counted) and the worker
 * takes the next one, so one caller's dead receiver cannot fill the worker and delay everyone else.
 * A host whose last attempt got no answer within its deadline is treated as hanging: one delivery at
 * a time until it answers again.
 */

/** Gives back a slot taken with {@link DeliverySlots.take}: `answered` says whether the receiver answered in time. */
export type ReleaseSlot = (answered: boolean) => void;

export interface DeliverySlotLimits {
  /** Deliveries in flight at once to one receiver host (`host:port`). */
  readonly maxInFlightPerHost: number;
  /** Deliveries in flight at once for one caller (tenant and subject). */
  readonly maxInFlightPerCaller: number;
}

/** @internal */
export class DeliverySlots {
  private readonly perHost = new Map<string, number>();
  private readonly perCaller = new Map<string, number>();
  private readonly hanging = new Set<string>();

  constructor(private readonly limits: DeliverySlotLimits) {}

  /** A slot for a delivery to `host` for `caller`, or undefined when either is at its limit. */
  take(host: string, caller: string): ReleaseSlot | undefined {
    const hostLimit = this.hanging.has(host) ? 1 : this.limits.maxInFlightPerHost;
    if ((this.perHost.get(host) ?? 0) >= hostLimit || (this.perCaller.get(caller) ?? 0) >= this.limits.maxInFlightPerCaller) return undefined;
    increment(this.perHost, host, 1);
    increment(this.perCaller, caller, 1);
    let released = false;
    return (answered) => {
      if (released) return;
      released = true;
      increment(this.perHost, host, -1);
      increment(this.perCaller, caller, -1);
      if (answered) this.hanging.delete(host);
      else this.hanging.add(host);
    };
  }

  /** Is `host` treated as hanging (one delivery at a time)? */
  isHanging(host: string): boolean {
    return this.hanging.has(host);
  }
}

function increment(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}
