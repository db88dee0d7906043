/**
 * A TCP relay in front of Redis, on 127.0.0.1, that a spec can break the way a network does: drop
 * every connection, stop accepting (connections are then refused), or swallow what clients send.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { REDIS_URL } from './redis-test-support.js';

export class RedisProxy {
  private readonly sockets = new Set<Socket>();
  private server?: Server;
  /** Client bytes containing this (case-insensitive) are dropped instead of relayed. */
  private swallowed?: string;
  /** How many writes were swallowed so far. */
  swallowedWrites = 0;

  private constructor(readonly port: number) {}

  /** Listens on a free port of 127.0.0.1, relaying to `REDIS_URL`'s server. */
  static async start(): Promise<RedisProxy> {
    const proxy = new RedisProxy(0);
    const port = await proxy.listen(0);
    return Object.assign(proxy, { port });
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** From now on, client writes containing `text` go nowhere (and get no answer); undefined relays all again. */
  swallow(text: string | undefined): void {
    this.swallowed = text?.toLowerCase();
  }

  /** Drops every open connection; new ones are still accepted. */
  cut(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  /** Stops accepting (connecting clients are refused) and drops every connection. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve());
    this.cut();
    await closed;
  }

  /** Accepts again on the same port. */
  async resume(): Promise<void> {
    await this.listen(this.port);
  }

  private listen(port: number): Promise<number> {
    const target = new URL(REDIS_URL);
    const server = createServer((client) => {
      const upstream = connect(Number(target.port || 6379), target.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => {
          this.sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
      client.on('data', (chunk: Buffer) => {
        if (this.swallowed !== undefined && chunk.toString('latin1').toLowerCase().includes(this.swallowed)) this.swallowedWrites++;
        else upstream.write(chunk);
      });
      upstream.pipe(client);
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
  }
}
