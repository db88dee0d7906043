/** Start-up report and orderly shutdown of what the module runs. */
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import { EventLog } from '../tasks/event-log.js';
import { TaskManager } from '../tasks/task-manager.js';
import { TaskStore } from '../tasks/task-store.js';
import { AgentCardService } from './agent-card.service.js';
import { AgentRegistry } from './agent-registry.js';
import { SseStreams } from './http/sse-streams.js';

type Closable = { close?: () => void | Promise<void> };

@Injectable()
export class A2ALifecycle implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('A2A');

  constructor(
    @Inject(AgentRegistry) private readonly registry: AgentRegistry,
    @Inject(AgentCardService) private readonly cards: AgentCardService,
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(TaskManager) private readonly tasks: TaskManager,
    @Inject(TaskStore) private readonly store: TaskStore & Closable,
    @Inject(EventLog) private readonly log: EventLog & Closable,
    @Inject(SseStreams) private readonly streams: SseStreams,
  ) {}

  /** One line per agent once the server listens (card URLs need the bound address). */
  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server) return;
    if (server.listening) this.report();
    else server.once('listening', () => this.report());
  }

  /**
   * Before the HTTP server closes (it waits for open connections): running tasks end FAILED, so
   * their streams and blocked callers get a final answer; then the streams still open are ended.
   */
  async onModuleDestroy(): Promise<void> {
    await this.tasks.shutdown();
    // streams of those tasks end by themselves once they wrote the final event; give them a moment
    for (let i = 0; i < 20 && this.streams.size > 0; i++) await sleep(10);
    this.streams.closeAll();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close?.();
    await this.log.close?.();
  }

  private report(): void {
    const defaultName = this.registry.defaultAgent.name;
    for (const agent of this.registry.all()) {
      const role = agent.name === defaultName ? ' (default agent, also at /.well-known/agent-card.json)' : '';
      this.logger.log(`Agent "${agent.name}" ready${role}: card ${this.cards.cardUrl(agent)}; security: none configured, every caller shares one subject`);
    }
  }
}
