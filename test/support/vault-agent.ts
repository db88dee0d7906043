/** An agent with an extended card for its gold callers, and the bearer guard that says who is gold. */
import { Injectable, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { A2A_PUBLIC, A2AAgent, A2ASecurity, SecuritySchemes, type AgentExecutor, type TaskContext } from 'nestjs-a2a';
import type { Json } from './wire-client.js';

/** Bearer tokens `t-<name>` (`gold` is the gold tier); honours the module's own public marker. */
@A2ASecurity({ schemes: { bearer: SecuritySchemes.bearer('opaque') } })
@Injectable()
export class BearerGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}
  canActivate(context: ExecutionContext) {
    if (this.reflector.getAllAndOverride<boolean>(A2A_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const req = context.switchToHttp().getRequest();
    const match = /^Bearer t-(\w+)$/.exec(req.headers.authorization ?? '');
    if (!match) throw new UnauthorizedException();
    req.user = { sub: match[1], tier: match[1] === 'gold' ? 'gold' : 'basic' };
    return true;
  }
}

@A2AAgent({ name: 'vault', description: 'Public description', skills: [{ id: 'public', name: 'P', description: 'p', tags: ['p'] }] })
@Injectable()
export class VaultAgent implements AgentExecutor {
  execute(ctx: TaskContext) {
    return ctx.reply(`hello ${ctx.caller.subject}`);
  }
  extendedAgentCard(caller: { user?: Json }) {
    if (caller.user?.tier !== 'gold') return undefined;
    return { description: 'Gold description', skills: [{ id: 'gold', name: 'G', description: 'g', tags: ['g'] }] };
  }
}
