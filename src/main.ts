import 'reflect-metadata';
import { Logger, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { demoConfig, type DemoPlatform } from './demo-config.js';

/**
 * A default app, Nest's own body parsers on: the A2A routes read their bodies with the module's
 * limits (size, depth, strict UTF-8) whatever the content type (see README, "Request bodies").
 */
async function createApp(platform: DemoPlatform): Promise<INestApplication> {
  if (platform === 'express') return NestFactory.create(AppModule.fromEnv());
  // loaded only when asked for: an Express run never loads Fastify
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return NestFactory.create(AppModule.fromEnv(), new FastifyAdapter());
}

async function bootstrap(): Promise<void> {
  const config = demoConfig();
  const app = await createApp(config.platform);
  // SIGTERM: the module drains (no new work, running tasks get A2A_SHUTDOWN_GRACE_MS), then exit 0
  app.enableShutdownHooks([], { useProcessExit: true });
  await app.listen(config.port, config.host);
  // the module has logged each agent with its card URL; this says how the demo is served and guarded
  const security = config.apiKeys ? 'X-API-Key required (DEMO_API_KEYS)' : 'open, every caller shares one subject';
  Logger.log(`nestjs-a2a demo ready on ${await app.getUrl()} (platform: ${config.platform}); security: ${security}`, 'Demo');
}

void bootstrap();
