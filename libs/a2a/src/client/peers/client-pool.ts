/**
 * The clients of the peers, one per (caller scope, peer, credential, tenant): never keyed by URL,
 * since a peer's card may move its interfaces and a URL says nothing of whose credential a client
 * sends. Least recently used clients beyond the limit are closed; they share their peer's
 * dispatcher and card resolver, so closing one drops no connection another still uses.
 */
import type { A2AClient } from '../a2a-client.js';

/** What a pooled client is for. */
export interface PoolKey {
  readonly subject: string;
  readonly scopeTenant: string;
  readonly peer: string;
  readonly credential: string;
  readonly tenant: string;
}

export class A2AClientPool {
  private readonly clients = new Map<string, { key: PoolKey; client: A2AClient }>();

  constructor(private readonly maxClients: number) {}

  /** The client for `key`, made by `create` on first use. */
  get(key: PoolKey, create: () => A2AClient): A2AClient {
    const id = JSON.stringify([key.subject, key.scopeTenant, key.peer, key.credential, key.tenant]);
    const found = this.clients.get(id);
    if (found !== undefined) {
      // most recently used last: a Map iterates in insertion order
      this.clients.delete(id);
      this.clients.set(id, found);
      return found.client;
    }
    const client = create();
    this.clients.set(id, { key, client });
    while (this.clients.size > this.maxClients) {
      const [oldest, entry] = this.clients.entries().next().value as [string, { client: A2AClient }];
      this.clients.delete(oldest);
      void entry.client.close().catch(() => undefined);
    }
    return client;
  }

  /** How many clients serve `peer`. */
  countFor(peer: string): number {
    let count = 0;
    for (const { key } of this.clients.values()) if (key.peer === peer) count += 1;
    return count;
  }

  async close(): Promise<void> {
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(all.map(({ client }) => client.close().catch(() => undefined)));
  }
}
