/**
 * The controllers, made per module registration because their paths come from the options
 * (Nest fixes routes when the module is compiled). Thin: each hands the exchange to its binding.
 * The platform's request and response stop here: bindings get node's and a {@link RoutedRequest}
 * (platform-exchange.ts, for Express and Fastify alike).
 */
import { All, applyDecorators, Controller, Get, Inject, Injectable, Req, Res, SetMetadata, UseFilters, UseGuards, type CanActivate, type Type } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { agentCardPath, bindingPaths, legacyCardPath, type ResolvedA2APaths } from '../a2a-paths.js';
import { A2AExceptionFilter } from './a2a-exception.filter.js';
import { AgentCardEndpoint } from './agent-card.endpoint.js';
import { JsonRpcBinding } from './json-rpc.binding.js';
import { responseOf, routedOf, subPathOf } from './platform-exchange.js';
import { RestBinding } from './rest.binding.js';
import { A2APublic, COMMON_PUBLIC_METADATA_KEY } from '../security/a2a-public.decorator.js';
import type { A2APublicRouteMetadata } from '../server-options.js';

/** Both the default agent's path and the per-agent path (`{agents}/:agent…`) of a binding. */
function bothPaths(paths: ResolvedA2APaths, binding: 'jsonRpc' | 'rest'): string[] {
  return [bindingPaths(paths, undefined)[binding]!, bindingPaths(paths, ':agent')[binding]!];
}

export interface ControllerSecurity {
  guards: Array<Type<CanActivate> | CanActivate>;
  publicRouteMetadata: A2APublicRouteMetadata[];
}

/**
 * The card and the JWKS are the only open routes: marked so for `@A2APublic()`, for the common
 * `isPublic` marker, and for the host's own (`publicRouteMetadata`, applied last, so it wins).
 */
function PublicRoute(security: ControllerSecurity) {
  return applyDecorators(
    A2APublic(),
    SetMetadata(COMMON_PUBLIC_METADATA_KEY, true),
    ...security.publicRouteMetadata.map((m) => SetMetadata(m.key, m.value === undefined ? true : m.value)),
  );
}

/** Every other A2A route: the module's guards. */
function ProtectedRoute(security: ControllerSecurity) {
  return applyDecorators(UseGuards(...security.guards));
}

/** A catch-all route segment in each platform's router syntax: Express 5's is named, Fastify's is bare. */
const CATCH_ALL: Readonly<Record<string, string>> = { express: '*path', fastify: '*' };

/** The paths of the HTTP+JSON controller: '' as well, since the interface URL itself is a path too (answered "no such operation"). */
const restRoutes = (platform: string | undefined) => ['', CATCH_ALL[platform ?? 'express'] ?? CATCH_ALL.express];

export interface A2AControllers {
  controllers: Type[];
  /**
   * Re-declares the catch-all route for the platform the app runs on, once it is known (Nest sets the
   * adapter before it registers the routes): Nest hands route strings to the platform's router as they are.
   */
  platformRoutes: Type;
}

export function createA2AControllers(paths: ResolvedA2APaths, security: ControllerSecurity): A2AControllers {
  @Controller()
  @PublicRoute(security)
  @UseFilters(A2AExceptionFilter)
  class AgentCardController {
    constructor(@Inject(AgentCardEndpoint) private readonly endpoint: AgentCardEndpoint) {}

    @Get([agentCardPath(paths, undefined), agentCardPath(paths, ':agent')])
    card(@Req() req: unknown, @Res() res: unknown): Promise<void> {
      return this.endpoint.handle(routedOf(req), responseOf(res));
    }

    /** The card at the path 0.2 and early 0.3 clients read: the hybrid card with `v03`, 404 without. */
    @Get([legacyCardPath(paths, undefined), legacyCardPath(paths, ':agent')])
    legacyCard(@Req() req: unknown, @Res() res: unknown): Promise<void> {
      return this.endpoint.handle(routedOf(req), responseOf(res), true);
    }

    @Get(paths.jwks)
    jwks(@Res() res: unknown): Promise<void> {
      return this.endpoint.jwks(responseOf(res));
    }
  }
  const controllers: Type[] = [AgentCardController];
  let restController: Type | undefined;

  if (paths.jsonRpc !== false) {
    @Controller(bothPaths(paths, 'jsonRpc'))
    @ProtectedRoute(security)
    @UseFilters(A2AExceptionFilter)
    class JsonRpcController {
      constructor(@Inject(JsonRpcBinding) private readonly binding: JsonRpcBinding) {}

      @All()
      handle(@Req() req: unknown, @Res() res: unknown): Promise<void> {
        return this.binding.handle(routedOf(req), responseOf(res));
      }
    }
    controllers.push(JsonRpcController);
  }

  if (paths.rest !== false) {
    @Controller(bothPaths(paths, 'rest'))
    @ProtectedRoute(security)
    @UseFilters(A2AExceptionFilter)
    class RestController {
      constructor(@Inject(RestBinding) private readonly binding: RestBinding) {}

      @All(restRoutes('express'))
      handle(@Req() req: unknown, @Res() res: unknown): Promise<void> {
        return this.binding.handle(routedOf(req), responseOf(res), subPathOf(req));
      }
    }
    controllers.push(RestController);
    restController = RestController;
  }

  @Injectable()
  class PlatformRoutes {
    constructor(@Inject(HttpAdapterHost) adapterHost: HttpAdapterHost) {
      adapterHost.init$.subscribe(() => {
        const rest = restController?.prototype as object | undefined;
        if (rest) All(restRoutes(adapterHost.httpAdapter?.getType()))(rest, 'handle', Object.getOwnPropertyDescriptor(rest, 'handle')!);
      });
    }
  }
  return { controllers, platformRoutes: PlatformRoutes };
}
