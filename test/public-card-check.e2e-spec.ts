/**
 * The start-up check of a host whose global guard does not know the card is public: once the server
 * listens, the module asks for its own card over loopback; a refusal is one warning naming the guard
 * and the fix. A guard following Nest's `@Public()` recipe (metadata `isPublic`) passes the card with
 * nothing configured.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { Injectable, SetMetadata, UnauthorizedException, type CanActivate, type ExecutionContext, type LoggerService } from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { A2AAgent, A2AModule, type AgentExecutor, type TaskContext } from 'nestjs-a2a';
import { PublicCardCheck } from '../libs/a2a/src/server/http/public-card-check.js';
import { startApp } from './support/custom-app.js';
import { describeOnEachPlatform } from './support/platforms.js';
import type { RunningApp } from './support/demo-app.js';

@A2AAgent({ name: 'guarded', description: 'An agent behind an API key', skills: [{ id: 's', name: 'S', description: 's', tags: ['s'] }] })
@Injectable()
class GuardedAgent implements AgentExecutor {
  execute(ctx: TaskContext) {
    return ctx.reply('ok');
  }
}

/** Every route needs the key: the guard never heard of public routes. */
@Injectable()
class KeyOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext) {
    if (context.switchToHttp().getRequest().headers['x-api-key'] !== 'k') throw new UnauthorizedException();
    return true;
  }
}

/** The app's own marker, as Nest's authentication recipe writes it. */
const IS_PUBLIC_KEY = 'isPublic';
export const Public = () => SetMetadata(IS_PUBLIC_KEY, true);

@Injectable()
class RecipeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}
  canActivate(context: ExecutionContext) {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [context.getHandler(), context.getClass()])) return true;
    return new KeyOnlyGuard().canActivate(context);
  }
}

/** A logger that keeps the warnings. */
function warningsLogger(): LoggerService & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, log() {}, error() {}, debug() {}, verbose() {}, warn: (message: unknown) => void warnings.push(String(message)) };
}

async function boot(guard: new (...args: never[]) => CanActivate): Promise<{ running: RunningApp; warnings: string[] }> {
  const logger = warningsLogger();
  const running = await startApp(A2AModule.forRoot(), [GuardedAgent, { provide: APP_GUARD, useClass: guard }], { bodyParser: false, logger });
  await running.app.get(PublicCardCheck).done;
  return { running, warnings: logger.warnings };
}

describeOnEachPlatform('the start-up check that the card is public', () => {
  let running: RunningApp | undefined;
  afterEach(() => running?.close());

  it('warns once, naming the guard and the fix, when a global guard refuses the card', async () => {
    const booted = await boot(KeyOnlyGuard);
    running = booted.running;
    expect((await fetch(`${running.url}/.well-known/agent-card.json`)).status).toBe(401);
    const cardWarnings = booted.warnings.filter((w) => w.includes('Agent Card'));
    expect(cardWarnings).toHaveLength(1);
    expect(cardWarnings[0]).toContain(`The Agent Card at ${running.url}/.well-known/agent-card.json answers 401`);
    expect(cardWarnings[0]).toContain('the global guard KeyOnlyGuard refuses it');
    expect(cardWarnings[0]).toContain('publicRouteMetadata: { key: YOUR_KEY }');
    expect(cardWarnings[0]).toContain('"isPublic"');
  });

  it('says nothing when the guard honours the common isPublic marker (recognised with nothing configured)', async () => {
    const booted = await boot(RecipeGuard);
    running = booted.running;
    expect((await fetch(`${running.url}/.well-known/agent-card.json`)).status).toBe(200);
    expect((await fetch(`${running.url}/a2a/jsonrpc`, { method: 'POST' })).status).toBe(401);
    expect(booted.warnings.filter((w) => w.includes('Agent Card'))).toEqual([]);
  });
});
