/**
 * A2A_RATE_LIMIT: the demo's rate limit, as any Nest app has one: `@nestjs/throttler`'s guard as an
 * APP_GUARD. The A2A module answers its refusal in each binding's shape (429, RESOURCE_EXHAUSTED,
 * with the guard's `Retry-After`). Loaded only when the variable is set (see `AppModule.fromEnv`).
 */
import { Injectable, Module, type DynamicModule, type ExecutionContext } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { NOT_RATE_LIMITED } from './health.controller.js';

/**
 * Counts per caller: the subject the API-key guard put on the request (it runs first, being the app
 * module's own APP_GUARD), or the client's address when the demo runs without keys.
 */
@Injectable()
export class CallerThrottlerGuard extends ThrottlerGuard {
  protected override async getTracker(req: Record<string, any>): Promise<string> {
    const subject = (req.user as { sub?: unknown } | undefined)?.sub;
    return typeof subject === 'string' ? `subject:${subject}` : `ip:${req.ip ?? req.socket?.remoteAddress ?? 'unknown'}`;
  }

  /** Health probes always get through. */
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return this.reflector.getAllAndOverride<boolean>(NOT_RATE_LIMITED, [context.getHandler(), context.getClass()]) === true;
  }
}

@Module({})
export class RateLimitModule {
  /** `limit` requests per minute per caller, on every route but the health probes. */
  static perMinute(limit: number): DynamicModule {
    return {
      module: RateLimitModule,
      // a named throttler, as apps with several have them: its wait is `Retry-After-per-minute`, which the module also answers as `Retry-After`
      imports: [ThrottlerModule.forRoot([{ name: 'per-minute', ttl: 60_000, limit }])],
      providers: [{ provide: APP_GUARD, useClass: CallerThrottlerGuard }],
    };
  }
}
