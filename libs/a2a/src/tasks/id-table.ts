/** Slots an empty table keeps (16 KB at most with the free list); more are let go when it empties. */
const KEPT_SLOTS = 1024;

/**
 * Values by string id, for tables whose entries come and go at the rate of requests (the running
 * turns that have a task, the in-memory logs, the in-memory store's tasks and contexts). Neither a `Map` of the
 * values nor an object keyed by the ids (issue 14; bench/README):
 * - a `Map` with entries set and deleted at that rate kept the values that passed through it alive
 *   past the young-generation collections: it replaces its backing table every few entries, and a
 *   replaced table that had reached the old space still holds them for the scavenger. Every turn and
 *   log was copied into the old space so;
 * - an object keyed by the ids lets a deleted entry go at once, but V8 interns every new id that
 *   becomes a property name: ~1.2 µs per id on node 20, against ~0.3 for a Map's whole set, get and
 *   delete, and a third of a Message answer's turn.
 * So a Map holds each id's slot (a number) and the values sit in an array, cleared in place when
 * their entry goes: a replaced table holds ids and numbers only. Order is not insertion order: none
 * of the users iterate in order.
 */
export class IdTable<V extends object | string> {
  private readonly slots = new Map<string, number>();
  /** The values by slot; `undefined` marks a free slot (a value is never undefined). */
  private readonly entries: (V | undefined)[] = [];
  /** Free slots, taken before the array grows. */
  private readonly free: number[] = [];

  get size(): number {
    return this.slots.size;
  }

  get(id: string): V | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.entries[slot];
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  set(id: string, value: V): void {
    const slot = this.slots.get(id);
    if (slot !== undefined) {
      this.entries[slot] = value;
      return;
    }
    const at = this.free.pop() ?? this.entries.length;
    this.entries[at] = value;
    this.slots.set(id, at);
  }

  delete(id: string): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    this.slots.delete(id);
    this.entries[slot] = undefined;
    // an empty table lets big arrays go (a burst does not keep its high-water mark) but keeps small
    // ones: a table that empties with every request (the running turns of tasks sent one at a time)
    // would otherwise free and grow its arrays each time, which cost as much as the rest of its set
    // and delete
    if (this.slots.size === 0 && this.entries.length > KEPT_SLOTS) {
      this.entries.length = 0;
      this.free.length = 0;
    } else {
      this.free.push(slot);
    }
    return true;
  }

  values(): V[] {
    return this.entries.filter((value): value is V => value !== undefined);
  }
}
