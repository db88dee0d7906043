/** Wiring only: the providers and controllers of the inbound server. */
import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { A2A_GUARDS, A2A_REDIS, A2A_ROUTES } from './a2a.constants.js';
import { A2A_ASYNC_OPTIONS_TYPE, A2A_MODULE_OPTIONS, A2A_OPTIONS_TYPE, ConfigurableA2AModule } from './a2a.module-definition.js';
import { resolveA2AOptions, resolveA2APaths, type A2AModuleExtras, type A2AModuleOptions, type ResolvedA2AOptions } from './config/a2a-options.js';
import { A2ARequestHandler } from './server/a2a-request-handler.js';
import { A2ALifecycle } from './server/a2a-lifecycle.js';
import { PublicCardCheck } from './server/security/public-card-check.js';
import { A2A_OPTIONS } from './server/a2a-options.provider.js';
import { createA2AControllers } from './server/a2a.controllers.js';
import { AgentCardService } from './server/agent-card.service.js';
import { AgentRegistry } from './server/agent-registry.js';
import { A2ACallerResolver } from './server/caller-resolver.js';
import { AgentCardEndpoint } from './server/http/agent-card.endpoint.js';
import { HostBodyParserErrors } from './server/http/host-body-parser-errors.js';
import { JsonRpcBinding } from './server/http/json-rpc.binding.js';
import { RestBinding } from './server/http/rest.binding.js';
import { SseStreams } from './server/http/sse-streams.js';
import { PublicUrl } from './server/public-url.js';
import { JsonRpcExceptionFilter, RestExceptionFilter } from './server/security/a2a-exception.filter.js';
import { SecurityInventory } from './server/security/security-inventory.js';
import { TaskBackend } from './tasks/task-backend.js';
import { TaskManager } from './tasks/engine/task-manager.js';
import { TASK_PROVIDERS } from './a2a-task.providers.js';
import { PUSH_PROVIDERS } from './a2a-push.providers.js';
import { PEER_EXPORTS, peerProviders } from './a2a-peer.providers.js';
import { PushDeliveryEvents } from './push/push-delivery-events.js';
import { PushDeadLetters } from './push/push-dead-letters.js';
import { connectRedis } from './redis/redis-connection.js';

const PROVIDERS = [
  { provide: A2A_OPTIONS, useFactory: (options: A2AModuleOptions) => resolveA2AOptions(options ?? {}), inject: [A2A_MODULE_OPTIONS] },
  {
    provide: A2A_REDIS,
    useFactory: (options: ResolvedA2AOptions) => (options.redis ? connectRedis(options.redis) : undefined),
    inject: [A2A_OPTIONS],
  },
  ...TASK_PROVIDERS,
  ...PUSH_PROVIDERS,
  AgentRegistry,
  AgentCardService,
  PublicUrl,
  A2ARequestHandler,
  A2ACallerResolver,
  SseStreams,
  JsonRpcBinding,
  RestBinding,
  AgentCardEndpoint,
  HostBodyParserErrors,
  A2ALifecycle,
  PublicCardCheck,
  SecurityInventory,
  JsonRpcExceptionFilter,
  RestExceptionFilter,
];

/**
 * Publishes the app's `@A2AAgent` providers over A2A v1.0: Agent Cards, the JSON-RPC and
 * HTTP+JSON bindings with SSE streaming, and the task lifecycle behind them.
 * @publicApi
 */
@Module({})
export class A2AModule extends ConfigurableA2AModule {
  static forRoot(options: typeof A2A_OPTIONS_TYPE = {}): DynamicModule {
    return A2AModule.complete(super.forRoot(options), options);
  }

  static forRootAsync(options: typeof A2A_ASYNC_OPTIONS_TYPE): DynamicModule {
    return A2AModule.complete(super.forRootAsync(options), options);
  }

  private static complete(definition: DynamicModule, extras: A2AModuleExtras): DynamicModule {
    const paths = resolveA2APaths(extras.paths);
    const guards = extras.guards ?? [];
    const publicRouteMetadata = extras.publicRouteMetadata === undefined ? [] : [extras.publicRouteMetadata].flat();
    return {
      ...definition,
      global: extras.isGlobal,
      imports: [...(definition.imports ?? []), DiscoveryModule],
      controllers: createA2AControllers(paths, { guards, publicRouteMetadata }),
      providers: [
        ...(definition.providers ?? []),
        { provide: A2A_ROUTES, useValue: paths },
        { provide: A2A_GUARDS, useValue: guards },
        ...PROVIDERS,
        ...(extras.callerResolver ? [{ provide: A2ACallerResolver, useClass: extras.callerResolver }] : []),
        ...peerProviders(extras),
      ],
      exports: [TaskManager, TaskBackend, A2ARequestHandler, AgentCardService, A2A_OPTIONS, A2A_REDIS, PushDeliveryEvents, PushDeadLetters, ...PEER_EXPORTS],
    };
  }
}
