import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { generateKeyPair } from 'jose';
import { randomUUID } from 'node:crypto';
import { A2AModule, type A2AModuleOptions } from 'nestjs-a2a';
import { ApiKeyGuard, IS_PUBLIC, parseApiKeys } from './api-key.guard.js';
import { demoConfig, type DemoConfig } from './demo-config.js';
import { EchoAgent } from './echo.agent.js';
import { HealthController } from './health.controller.js';
import { MetricsController } from './metrics.controller.js';
import { SupportAgent, demoPeerOptions } from './support.agent.js';

/** DEMO_API_KEYS turns on the demo's ordinary app guard; the module runs it on every A2A route. */
function guards(config: DemoConfig): Provider[] {
  if (!config.apiKeys) return [];
  const keys = parseApiKeys(config.apiKeys);
  return [{ provide: APP_GUARD, useFactory: (reflector: Reflector) => new ApiKeyGuard(reflector, keys), inject: [Reflector] }];
}

/** DEMO_SIGN_CARD=1: an ES256 key made at start-up signs the card; the module serves its JWKS. */
async function signing(config: DemoConfig): Promise<A2AModuleOptions['signing']> {
  if (!config.signCard) return undefined;
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { keys: [{ key: privateKey, alg: 'ES256', kid: `demo-${randomUUID().slice(0, 8)}` }] };
}

/**
 * Push notifications are on exactly when Redis is (configs and the delivery queue live there).
 * Notifications are signed with an ES256 key made at start-up (its public key is in the JWKS);
 * instances of one demo sharing a Redis each have their own key, which the JWKS of each serves.
 */
async function push(config: DemoConfig): Promise<A2AModuleOptions['push']> {
  if (!config.redisUrl) return undefined;
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return {
    retrySchedule: config.pushRetrySchedule,
    // loopback and private webhooks (over http too) only when asked: local tests
    egress: config.allowPrivateWebhooks ? { allowHttp: true, allowPrivate: true } : {},
    encryptionKey: config.pushEncryptionKey,
    signing: { key: privateKey, alg: 'ES256', kid: `demo-push-${randomUUID().slice(0, 8)}` },
  };
}

/** The demo app, configured from the environment (README, "The demo agent"). */
@Module({})
export class AppModule {
  static fromEnv(env: NodeJS.ProcessEnv = process.env): DynamicModule {
    const config = demoConfig(env);
    return {
      module: AppModule,
      imports: [
        A2AModule.forRootAsync({
          // push is on with Redis (the factory's push below): Nest registers its queue before the factory runs
          push: Boolean(config.redisUrl),
          // the card and the JWKS are public: marked with the app's own public-route metadata, which its guard honours
          publicRouteMetadata: { key: IS_PUBLIC },
          useFactory: async (): Promise<A2AModuleOptions> => ({
            publicUrl: config.publicUrl,
            defaultAgent: 'echo',
            allowUnauthenticated: config.allowUnauthenticated,
            // clients that still speak A2A 0.3 are served too (A2A_V03=0: 1.0 only)
            v03: config.v03,
            signing: await signing(config),
            redis: config.redisUrl ? { url: config.redisUrl, keyPrefix: config.redisPrefix, leaseMs: config.leaseMs } : undefined,
            push: await push(config),
            // the support agent's peers (DEMO_PEERS; by default this demo's own echo agent)
            peers: demoPeerOptions(config.peers),
            card: { provider: { organization: 'nestjs-a2a demo', url: 'https://github.com/nestjs-a2a/nestjs-a2a' } },
            // the longest `/task slow` is 120 s; streams: at least 20,000 overall and per caller
            limits: { executorTimeoutMs: 180_000 },
            streaming: { maxStreams: 50_000, maxStreamsPerCaller: 20_000 },
            shutdown: config.shutdownGraceMs === undefined ? undefined : { gracePeriodMs: config.shutdownGraceMs },
          }),
        }),
        TerminusModule,
        // loaded only when asked for: the throttler is a CommonJS package (fine for Node, not for jest's ESM mode)
        ...(config.rateLimit ? [import('./rate-limit.module.js').then((m) => m.RateLimitModule.perMinute(config.rateLimit!))] : []),
      ],
      controllers: [HealthController, MetricsController],
      providers: [EchoAgent, SupportAgent, ...guards(config)],
    };
  }
}
