/** Start-up report and orderly shutdown of what the module runs. */
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import { EventLog } from '../tasks/event-log.js';
import { TaskManager } from '../tasks/task-manager.js';
import { TaskStore } from '../tasks/task-store.js';
import { AgentCardService } from './agent-card.service.js';
import { AgentRegistry } from './agent-registry.js';

type Closable = { close?: () => void | Promise<void> };

@Injectable()
export class A2ALifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('A2A');

  constructor(
    @Inject(AgentRegistry) private readonly registry: AgentRegistry,
    @Inject(AgentCardService) private readonly cards: AgentCardService,
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(TaskManager) private readonly tasks: TaskManager,
    @Inject(TaskStore) private readonly store: TaskStore & Closable,
    @Inject(EventLog) private readonly log: EventLog & Closable,
  ) {}

  /** One line per agent once the server listens (card URLs need the bound address). */
  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server) return;
    if (server.listening) this.report();
    else server.once('listening', () => this.report());
  }

  async onApplicationShutdown(): Promise<void> {
    await this.tasks.shutdown();
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
