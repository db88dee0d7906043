/**
 * Values by string id, for tables whose entries come and go at the rate of requests (the turns
 * running, the in-memory logs, the in-memory store's tasks and contexts). Not a `Map`: measured on
 * node 20, a Map with entries set and deleted at that rate kept the values that passed through it
 * alive past the young-generation collections (its replaced backing tables are the likely holders;
 * not confirmed in V8's source), so every turn and log was copied into the old space (issue 14: with
 * the turns, the logs and the open-streams list moved off Maps, a stream's scavenge time fell by
 * ~40%; bench/README). A prototype-less dictionary object lets a deleted entry go at once. Its
 * order is not insertion order (integer-like ids come first): none of its users iterate in order.
 */
export class IdTable<V extends object | string> {
  private readonly entries: Record<string, V | undefined> = Object.create(null) as Record<string, V | undefined>;
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(id: string): V | undefined {
    return this.entries[id];
  }

  has(id: string): boolean {
    return this.entries[id] !== undefined;
  }

  set(id: string, value: V): void {
    if (this.entries[id] === undefined) this.count++;
    this.entries[id] = value;
  }

  delete(id: string): boolean {
    if (this.entries[id] === undefined) return false;
    delete this.entries[id];
    this.count--;
    return true;
  }

  values(): V[] {
    return Object.values(this.entries) as V[];
  }
}
