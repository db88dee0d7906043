import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { demoConfig } from './demo-config.js';

async function bootstrap(): Promise<void> {
  // A default app, Nest's own body parsers on: the A2A routes read their bodies with the module's
  // limits (size, depth, strict UTF-8) whatever the content type (see README, "Request bodies").
  const app = await NestFactory.create(AppModule.fromEnv());
  // SIGTERM: the module drains (no new work, running tasks get A2A_SHUTDOWN_GRACE_MS), then exit 0
  app.enableShutdownHooks([], { useProcessExit: true });
  const config = demoConfig();
  await app.listen(config.port, config.host);
  // the module has logged each agent with its card URL; this says how the demo is guarded
  const security = config.apiKeys ? 'X-API-Key required (DEMO_API_KEYS)' : 'open, every caller shares one subject';
  Logger.log(`nestjs-a2a demo ready on ${await app.getUrl()}; security: ${security}`, 'Demo');
}

void bootstrap();
