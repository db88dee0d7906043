/** Start-up report and orderly shutdown of what the module runs. */
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import { TaskBackend } from './tasks/task-backend.js';
import { TaskManager } from './tasks/engine/task-manager.js';
import type { RedisConnection } from './redis/redis-connection.js';
import { A2A_REDIS, InjectA2AOptions } from './config/a2a.constants.js';
import { AgentCardService } from './server/agent-card.service.js';
import { AgentRegistry } from './server/agent-registry.js';
import { SseStreams } from './server/http/sse-streams.js';
import { A2AConfigurationError } from './config/a2a-configuration.error.js';
import { ConnectionDrain } from './server/http/connection-drain.js';
import { InMemoryTaskBackend } from './tasks/in-memory/in-memory-task-backend.js';
import type { ResolvedServerOptions } from './server/server-options.js';
import { PublicCardCheck } from './server/http/public-card-check.js';
import { SecurityInventory } from './server/security/security-inventory.js';
import type { AddressInfo } from 'node:net';
import ipaddr from 'ipaddr.js';

/** How long answers in flight get to be written once the running tasks have ended, before their connections are closed. */
const ANSWER_WAIT_MS = 1_000;

@Injectable()
export class A2ALifecycle implements OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('A2A');
  private drain?: ConnectionDrain;
  /** When the running tasks' grace period ends (set when shutdown begins). */
  private graceEndsAt?: number;

  constructor(
    @Inject(AgentRegistry) private readonly registry: AgentRegistry,
    @Inject(AgentCardService) private readonly cards: AgentCardService,
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(TaskManager) private readonly tasks: TaskManager,
    @Inject(TaskBackend) private readonly backend: TaskBackend,
    @Inject(SseStreams) private readonly streams: SseStreams,
    @Inject(SecurityInventory) private readonly security: SecurityInventory,
    @InjectA2AOptions() private readonly options: ResolvedServerOptions,
    @Inject(A2A_REDIS) private readonly redis: RedisConnection | undefined,
    @Inject(PublicCardCheck) private readonly cardCheck: PublicCardCheck,
  ) {}

  /**
   * Once the server listens (the bound address is known only then): refuse to serve unguarded
   * routes beyond loopback, then one line per agent with its card URL and security state, then a
   * check that a client without credentials gets the card.
   */
  async onApplicationBootstrap(): Promise<void> {
    // a signing key that cannot sign fails start-up, not the first card request
    await Promise.all(this.registry.all().map((agent) => this.cards.served(agent, true)));
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server) return;
    if (server.listening) this.onListening(server);
    else server.once('listening', () => this.onListening(server));
  }

  private onListening(server: Server): void {
    const address = server.address() as AddressInfo | string | null;
    const problem = unguardedExposure(typeof address === 'object' && address ? address.address : undefined, this.security.guarded, this.options.allowUnauthenticated);
    if (problem) {
      server.close();
      // Nest's listen() turns a server error into its rejection: start-up fails with this message
      server.emit('error', new A2AConfigurationError([problem]));
      return;
    }
    this.report();
    if (typeof address === 'object' && address) this.cardCheck.start(address);
  }

  /** Shutdown has begun: readiness fails from now on. */
  get shuttingDown(): boolean {
    return this.graceEndsAt !== undefined;
  }

  /**
   * Shutdown begins (the first hook Nest calls): stop taking work at once. No new connection, and
   * every answer from now on closes its connection; no new message or stream. With tasks in a
   * shared backend (Redis, your own), open streams end now so that their clients resume on another
   * instance with `Last-Event-ID` while this one finishes their tasks; in memory they end with them.
   */
  onModuleDestroy(): void {
    this.cardCheck.stop();
    this.graceEndsAt = Date.now() + this.options.shutdown.gracePeriodMs;
    this.tasks.stopAccepting();
    this.streams.stopAccepting();
    const server = this.adapterHost.httpAdapter?.getHttpServer?.() as Server | undefined;
    if (server?.listening && typeof server.closeIdleConnections === 'function') this.drain = new ConnectionDrain(server);
    if (!(this.backend instanceof InMemoryTaskBackend)) this.streams.closeAll();
  }

  /**
   * Before the HTTP server closes: on a signal the running tasks get what is left of the grace period
   * to finish (`app.close()` from code does not wait), then those still running end FAILED, so their
   * streams and blocked callers get a final answer; then the streams still open end, and the
   * connections left are closed once their answers are written.
   */
  async beforeApplicationShutdown(signal?: string): Promise<void> {
    const graceMs = signal === undefined ? 0 : Math.max(0, (this.graceEndsAt ?? 0) - Date.now());
    if (graceMs > 0 && this.tasks.running > 0) this.logger.log(`Shutting down (${signal}): ${this.tasks.running} running tasks get ${graceMs} ms to finish`);
    await this.tasks.shutdown(graceMs);
    // streams of those tasks end by themselves once they wrote the final event; give them a moment
    for (let i = 0; i < 20 && this.streams.size > 0; i++) await sleep(10);
    this.streams.closeAll();
    await this.drain?.finish(ANSWER_WAIT_MS);
  }

  /** After the server closed: the task backend, then the Redis connection if the module made it. */
  async onApplicationShutdown(): Promise<void> {
    await this.backend.close();
    if (this.redis?.owned) await this.redis.client.quit().catch(() => this.redis!.client.disconnect());
  }

  private report(): void {
    const defaultName = this.registry.defaultAgent.name;
    for (const agent of this.registry.all()) {
      const role = agent.name === defaultName ? ` (default agent, also at ${this.cards.cardPath()})` : '';
      this.logger.log(`Agent "${agent.name}" ready${role}: card ${this.cards.cardUrl(agent.name)}; security: ${this.security.describe()}`);
    }
  }
}

/** Why serving `host` this way is refused, or undefined when it is fine. */
export function unguardedExposure(host: string | undefined, guarded: boolean, allowUnauthenticated: boolean): string | undefined {
  if (host === undefined || guarded || allowUnauthenticated) return undefined;
  if (ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback') return undefined;
  return (
    `the server listens on ${host}, beyond loopback, and no guard protects the A2A routes: every caller would share one identity. ` +
    "Add your auth guard (APP_GUARD, or the module's `guards`), or set allowUnauthenticated: true if that is really meant"
  );
}
