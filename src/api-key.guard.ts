/**
 * The demo's own host guard, as any Nest app would have one: `X-API-Key` → subject. It knows
 * nothing of A2A beyond declaring what it enforces, so the Agent Card can publish it.
 */
import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { A2ASecurity, SecuritySchemes } from 'nestjs-a2a';

/** The metadata key of the app's own "public route" marker; the A2A module marks the card and JWKS with it. */
export const IS_PUBLIC = 'demo:isPublic';

export const API_KEY_HEADER = 'X-API-Key';

/** `alice:key1,bob:key2` → key → subject. */
export function parseApiKeys(value: string): Map<string, string> {
  const keys = new Map<string, string>();
  for (const pair of value.split(',')) {
    const [subject, key] = pair.split(':').map((s) => s.trim());
    if (subject && key) keys.set(key, subject);
  }
  return keys;
}

@A2ASecurity({ schemes: { apiKey: SecuritySchemes.apiKey(API_KEY_HEADER, 'header', 'A demo API key') } })
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: Map<string, string>,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; user?: unknown }>();
    const subject = this.keys.get(req.headers[API_KEY_HEADER.toLowerCase()] ?? '');
    if (!subject) throw new UnauthorizedException('A valid X-API-Key header is required');
    req.user = { sub: subject };
    return true;
  }
}
