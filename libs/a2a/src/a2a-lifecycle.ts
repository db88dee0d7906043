/** Start-up report and orderly shutdown of what the module runs. */
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
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
import type { ResolvedServerOptions } from './server/server-options.js';
import { PublicCardCheck } from './server/http/public-card-check.js';
import { SecurityInventory } from './server/security/security-inventory.js';
import type { AddressInfo } from 'node:net';
import ipaddr from 'ipaddr.js';

@Injectable()
export class A2ALifecycle implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('A2A');

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

  /**
   * Before the HTTP server closes (it waits for open connections): running tasks end FAILED, so
   * their streams and blocked callers get a final answer; then the streams still open are ended.
   */
  async onModuleDestroy(): Promise<void> {
    this.cardCheck.stop();
    await this.tasks.shutdown();
    // streams of those tasks end by themselves once they wrote the final event; give them a moment
    for (let i = 0; i < 20 && this.streams.size > 0; i++) await sleep(10);
    this.streams.closeAll();
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
