/**
 * The demo's health endpoints, with `@nestjs/terminus` as any Nest app has them: `/health` for
 * liveness (the process answers: never restart it for Redis being away), `/health/ready` for
 * readiness (the module's Redis connections and workers, and not shutting down). Public, and never
 * rate-limited, so that probes always get through. In the app module, beside `TerminusModule` and
 * `A2AModule` (whose `A2AHealthIndicator` it uses).
 */
import { Controller, Get, Inject, SetMetadata } from '@nestjs/common';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { A2AHealthIndicator } from 'nestjs-a2a';
import { IS_PUBLIC } from './api-key.guard.js';

/** The demo's marker of routes its rate limit leaves alone (the throttler is loaded only when A2A_RATE_LIMIT is set). */
export const NOT_RATE_LIMITED = 'demo:notRateLimited';

@Controller('health')
@SetMetadata(IS_PUBLIC, true)
@SetMetadata(NOT_RATE_LIMITED, true)
export class HealthController {
  constructor(
    @Inject(HealthCheckService) private readonly health: HealthCheckService,
    @Inject(A2AHealthIndicator) private readonly a2a: A2AHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([() => this.a2a.isHealthy('a2a')]);
  }
}
