/**
 * The controllers, made per module registration because their paths come from the options
 * (Nest fixes routes when the module is compiled). Thin: each hands the exchange to its binding.
 * The platform's request and response stop here: bindings get node's and a {@link RoutedRequest}.
 */
import { All, applyDecorators, Controller, Get, Inject, Req, Res, SetMetadata, UseFilters, UseGuards, type CanActivate, type Type } from '@nestjs/common';
import type { Request, Response } from 'express';
import { agentCardPath, bindingPaths, legacyCardPath, type ResolvedA2APaths } from '../a2a-paths.js';
import { A2AExceptionFilter } from './a2a-exception.filter.js';
import { AgentCardEndpoint } from './agent-card.endpoint.js';
import type { RoutedRequest } from './http-binding.js';
import { JsonRpcBinding } from './json-rpc.binding.js';
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

/** What an Express request says to a binding (the platform's request stays the caller resolver's). */
function routed(req: Request): RoutedRequest {
  return { request: req, raw: req, agent: req.params.agent as string | undefined, query: req.query as Record<string, unknown> };
}

export function createA2AControllers(paths: ResolvedA2APaths, security: ControllerSecurity): Type[] {
  @Controller()
  @PublicRoute(security)
  @UseFilters(A2AExceptionFilter)
  class AgentCardController {
    constructor(@Inject(AgentCardEndpoint) private readonly endpoint: AgentCardEndpoint) {}

    @Get([agentCardPath(paths, undefined), agentCardPath(paths, ':agent')])
    card(@Req() req: Request, @Res() res: Response): Promise<void> {
      return this.endpoint.handle(routed(req), res);
    }

    /** The card at the path 0.2 and early 0.3 clients read: the hybrid card with `v03`, 404 without. */
    @Get([legacyCardPath(paths, undefined), legacyCardPath(paths, ':agent')])
    legacyCard(@Req() req: Request, @Res() res: Response): Promise<void> {
      return this.endpoint.handle(routed(req), res, true);
    }

    @Get(paths.jwks)
    jwks(@Res() res: Response): Promise<void> {
      return this.endpoint.jwks(res);
    }
  }
  const controllers: Type[] = [AgentCardController];

  if (paths.jsonRpc !== false) {
    @Controller(bothPaths(paths, 'jsonRpc'))
    @ProtectedRoute(security)
    @UseFilters(A2AExceptionFilter)
    class JsonRpcController {
      constructor(@Inject(JsonRpcBinding) private readonly binding: JsonRpcBinding) {}

      @All()
      handle(@Req() req: Request, @Res() res: Response): Promise<void> {
        return this.binding.handle(routed(req), res);
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

      // '' as well: the interface URL itself is a path too (answered "no such operation" in the REST shape)
      @All(['', '*path'])
      handle(@Req() req: Request, @Res() res: Response): Promise<void> {
        return this.binding.handle(routed(req), res, subPath(req));
      }
    }
    controllers.push(RestController);
  }
  return controllers;
}

/** The still-encoded path after the interface URL: the matched route minus its `*path` segment. */
function subPath(req: Request): string {
  const routePath = String(req.route?.path ?? '');
  const prefixSegments = routePath.split('/').filter(Boolean).length - (routePath.endsWith('*path') ? 1 : 0);
  const rawPath = req.originalUrl.split('?')[0];
  return `/${rawPath.split('/').filter(Boolean).slice(prefixSegments).join('/')}`;
}
