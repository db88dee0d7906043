/**
 * The controllers, made per module registration because their paths come from the options
 * (Nest fixes routes when the module is compiled). Thin: each hands the exchange to its binding.
 */
import { All, applyDecorators, Controller, Get, Inject, Req, Res, SetMetadata, UseFilters, UseGuards, type CanActivate, type Type } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { A2APublicRouteMetadata, ResolvedA2APaths } from '../config/a2a-options.js';
import { bindingPaths } from './agent-card.service.js';
import { AgentCardEndpoint } from './http/agent-card.endpoint.js';
import { JsonRpcBinding } from './http/json-rpc.binding.js';
import { RestBinding } from './http/rest.binding.js';
import { A2APublic, COMMON_PUBLIC_METADATA_KEY } from './security/a2a-public.decorator.js';
import { JsonRpcExceptionFilter, RestExceptionFilter } from './security/a2a-exception.filter.js';

const WELL_KNOWN_CARD = '/.well-known/agent-card.json';

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

/** Every other A2A route: the module's guards, and errors before the handler in the binding's shape. */
function ProtectedRoute(security: ControllerSecurity, filter: Type) {
  return applyDecorators(UseGuards(...security.guards), UseFilters(filter));
}

export function createA2AControllers(paths: ResolvedA2APaths, security: ControllerSecurity): Type[] {
  @Controller()
  @PublicRoute(security)
  @UseFilters(RestExceptionFilter)
  class AgentCardController {
    constructor(@Inject(AgentCardEndpoint) private readonly endpoint: AgentCardEndpoint) {}

    @Get([WELL_KNOWN_CARD, `${paths.agents}/:agent${WELL_KNOWN_CARD}`])
    card(@Req() req: Request, @Res() res: Response): Promise<void> {
      return this.endpoint.handle(req, res);
    }

    @Get(paths.jwks)
    jwks(@Res() res: Response): Promise<void> {
      return this.endpoint.jwks(res);
    }
  }
  const controllers: Type[] = [AgentCardController];

  if (paths.jsonRpc !== false) {
    @Controller(bothPaths(paths, 'jsonRpc'))
    @ProtectedRoute(security, JsonRpcExceptionFilter)
    class JsonRpcController {
      constructor(@Inject(JsonRpcBinding) private readonly binding: JsonRpcBinding) {}

      @All()
      handle(@Req() req: Request, @Res() res: Response): Promise<void> {
        return this.binding.handle(req, res);
      }
    }
    controllers.push(JsonRpcController);
  }

  if (paths.rest !== false) {
    @Controller(bothPaths(paths, 'rest'))
    @ProtectedRoute(security, RestExceptionFilter)
    class RestController {
      constructor(@Inject(RestBinding) private readonly binding: RestBinding) {}

      @All('*path')
      handle(@Req() req: Request, @Res() res: Response): Promise<void> {
        return this.binding.handle(req, res, subPath(req));
      }
    }
    controllers.push(RestController);
  }
  return controllers;
}

/** The still-encoded path after the interface URL: the matched route minus its `*path` segment. */
function subPath(req: Request): string {
  const prefixSegments = String(req.route?.path ?? '').split('/').filter(Boolean).length - 1;
  const rawPath = req.originalUrl.split('?')[0];
  return `/${rawPath.split('/').filter(Boolean).slice(prefixSegments).join('/')}`;
}
