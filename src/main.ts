import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AgentCardService, AgentRegistry } from 'nestjs-a2a';
import { AppModule } from './app.module.js';
import { demoConfig } from './demo-config.js';

async function bootstrap(): Promise<void> {
  // The demo has no JSON routes of its own, so Nest's JSON parser is off and the A2A routes read
  // their bodies with the module's limits (size, depth, strict UTF-8). An app with its own JSON
  // routes keeps Nest's parser: the module then uses what it parsed (see README, "Request bodies").
  const app = await NestFactory.create(AppModule.fromEnv(), { bodyParser: false });
  app.enableShutdownHooks();
  const config = demoConfig();
  await app.listen(config.port, config.host);
  // one line naming every published agent, its card and the security in front of it
  const cards = app.get(AgentCardService);
  const agents = app.get(AgentRegistry).all().map((agent) => `${agent.name} ${cards.cardUrl(agent.name)}`);
  const security = config.apiKeys ? 'X-API-Key required (DEMO_API_KEYS)' : 'open, every caller shares one subject';
  Logger.log(`nestjs-a2a demo ready on ${await app.getUrl()}: ${agents.join(', ')}; security: ${security}`, 'Demo');
}

void bootstrap();
