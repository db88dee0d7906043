/** Wiring only: the providers and controllers of the inbound server. */
import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { checkA2AOptions, type A2AModuleExtras, type A2AModuleOptions, type CheckedA2AOptions, type ResolvedA2AOptions } from './a2a-options.js';
import { A2A_ASYNC_OPTIONS_TYPE, A2A_MODULE_OPTIONS, A2A_OPTIONS_TYPE, ConfigurableA2AModule } from './a2a.module-definition.js';
import { PEER_EXPORTS, clientProviders, peerProviders } from './a2a-peer.providers.js';
import { PUSH_PROVIDERS } from './a2a-push.providers.js';
import { A2AStartupCheck } from './a2a-startup-check.js';
import { A2A_CLIENT_NAMES, A2A_GUARDS, A2A_OPTION_CHECK, A2A_OPTIONS, A2A_REDIS, A2A_ROUTES } from './config/a2a.constants.js';
import { PushDeadLetters } from './push/push-dead-letters.js';
import { PushDeliveryEvents } from './push/push-delivery-events.js';
import { ToolCallEvents } from './tasks/tool-call-events.js';
import { A2AHealthIndicator } from './a2a-health.indicator.js';
import { PushDeliveryAdmin } from './push/push-delivery-admin.js';
import { A2ALifecycle } from './a2a-lifecycle.js';
import { resolveA2APaths } from './server/a2a-paths.js';
import { A2ARequestHandler } from './server/a2a-request-handler.js';
import { createA2AControllers } from './server/http/a2a.controllers.js';
import { PublicCardCheck } from './server/http/public-card-check.js';
import { AgentCardService } from './server/agent-card.service.js';
import { AgentRegistry } from './server/agent-registry.js';
import { A2ACallerResolver } from './server/caller-resolver.js';
import { AgentCardEndpoint } from './server/http/agent-card.endpoint.js';
import { A2AExceptionFilter } from './server/http/a2a-exception.filter.js';
import { BindingRoutes } from './server/http/binding-routes.js';
import { BodyReadAhead } from './server/http/body-read-ahead.js';
import { ExpressRequestClasses } from './server/http/express-request-classes.js';
import { HttpServerTimeouts } from './server/http/http-server-timeouts.js';
import { RouterErrors } from './server/http/router-errors.js';
import { JsonRpcBinding } from './server/http/json-rpc.binding.js';
import { RestBinding } from './server/http/rest.binding.js';
import { SseStreams } from './server/http/sse-streams.js';
import { PublicUrl } from './server/public-url.js';
import { SecurityInventory } from './server/security/security-inventory.js';
import { TASK_PROVIDERS } from './a2a-task.providers.js';
import { connectRedis } from './redis/redis-connection.js';
import { importOptionalPackages } from './config/optional-package.js';
import { TaskManager } from './tasks/engine/task-manager.js';
import { TaskBackend } from './tasks/task-backend.js';

const PROVIDERS = [
  {
    provide: A2A_REDIS,
    useFactory: (options: ResolvedA2AOptions) => (options.redis ? connectRedis(options.redis) : undefined),
    inject: [A2A_OPTIONS],
  },
  ...TASK_PROVIDERS,
  ...PUSH_PROVIDERS,
  A2AStartupCheck,
  AgentRegistry,
  AgentCardService,
  PublicUrl,
  A2ARequestHandler,
  A2ACallerResolver,
  SseStreams,
  JsonRpcBinding,
  RestBinding,
  AgentCardEndpoint,
  BindingRoutes,
  BodyReadAhead,
  RouterErrors,
  HttpServerTimeouts,
  ExpressRequestClasses,
  A2ALifecycle,
  A2AHealthIndicator,
  PublicCardCheck,
  SecurityInventory,
  A2AExceptionFilter,
];

/**
 * The options, checked: a module of their own, so that the push queue's registration (a sibling
 * dynamic module) injects them too; Nest makes one instance of it however often it is imported.
 * @internal
 */
@Module({})
export class A2AOptionsModule {}

/** Loads the push queue's registration (and `@nestjs/bullmq`, an optional peer) only with push on. */
async function pushQueueModule(optionsModule: DynamicModule): Promise<DynamicModule> {
  await importOptionalPackages('push', ['@nestjs/bullmq', 'bullmq', 'ioredis']);
  return (await import('./push/push-queue.module.js')).pushQueueModule(optionsModule);
}

/** `forRootAsync`'s own extras. @publicApi */
export interface A2AAsyncExtras {
  /**
   * The options the factory gives have `push`: the module then registers the push queue and its
   * worker with `@nestjs/bullmq`, which Nest needs to know before the factory runs. Default false.
   */
  push?: boolean;
}

/**
 * Publishes the app's `@A2AAgent` providers over A2A v1.0: Agent Cards, the JSON-RPC and
 * HTTP+JSON bindings with SSE streaming, and the task lifecycle behind them.
 * @publicApi
 */
@Module({})
export class A2AModule extends ConfigurableA2AModule {
  static forRoot(options: typeof A2A_OPTIONS_TYPE = {}): DynamicModule {
    const peers = Array.isArray(options.peers) ? options.peers.map((peer) => peer?.name).filter((name) => typeof name === 'string') : [];
    return A2AModule.complete(super.forRoot(options), options, peers, options.push !== undefined);
  }

  static forRootAsync(options: typeof A2A_ASYNC_OPTIONS_TYPE & A2AAsyncExtras): DynamicModule {
    return A2AModule.complete(super.forRootAsync(options), options, [], options.push === true);
  }

  private static complete(definition: DynamicModule, extras: A2AModuleExtras, peers: string[], push: boolean): DynamicModule {
    const paths = resolveA2APaths(extras.paths);
    const guards = extras.guards ?? [];
    const publicRouteMetadata = extras.publicRouteMetadata === undefined ? [] : [extras.publicRouteMetadata].flat();
    const clients = [...new Set([...peers, ...(extras.clients ?? [])])];
    const clientTokens = clientProviders(clients);
    const { controllers, platformRoutes } = createA2AControllers(paths, { guards, publicRouteMetadata });
    const optionsModule: DynamicModule = {
      module: A2AOptionsModule,
      imports: definition.imports ?? [],
      providers: [
        ...(definition.providers ?? []),
        // problems wait for the start-up check, which lists them with the agents' and every other
        { provide: A2A_OPTION_CHECK, useFactory: (options: A2AModuleOptions) => checkA2AOptions(options ?? {}, { pushQueue: push }), inject: [A2A_MODULE_OPTIONS] },
        { provide: A2A_OPTIONS, useFactory: (checked: CheckedA2AOptions) => checked.options, inject: [A2A_OPTION_CHECK] },
      ],
      exports: [A2A_OPTION_CHECK, A2A_OPTIONS],
    };
    return {
      module: definition.module,
      global: extras.isGlobal,
      imports: [optionsModule, DiscoveryModule, ...(push ? [pushQueueModule(optionsModule)] : [])],
      controllers,
      providers: [
        { provide: A2A_ROUTES, useValue: paths },
        { provide: A2A_GUARDS, useValue: guards },
        { provide: A2A_CLIENT_NAMES, useValue: clients },
        ...PROVIDERS,
        platformRoutes,
        ...(extras.callerResolver ? [{ provide: A2ACallerResolver, useClass: extras.callerResolver }] : []),
        ...peerProviders(extras),
        ...clientTokens,
      ],
      exports: [
        TaskManager,
        TaskBackend,
        A2ARequestHandler,
        AgentCardService,
        // A2A_OPTIONS, from the options module
        A2AOptionsModule,
        A2A_REDIS,
        PushDeliveryEvents,
        PushDeadLetters,
        ToolCallEvents,
        A2AHealthIndicator,
        PushDeliveryAdmin,
        ...PEER_EXPORTS,
        ...clientTokens.map((provider) => (provider as { provide: string }).provide),
      ],
    };
  }
}
