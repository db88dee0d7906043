/**
 * What guards protect the A2A routes (the module's own and the app's global ones) and what they
 * declare: the card's security, the 401 challenge and the start-up report all come from here.
 */
import { Inject, Injectable, type CanActivate, type Type } from '@nestjs/common';
import { ApplicationConfig, Reflector } from '@nestjs/core';
import { A2A_GUARDS } from '../../config/a2a.constants.js';
import type { SecurityRequirement, SecurityScheme } from '../../protocol/types.js';
import { A2ASecurity, type A2ASecurityDeclaration } from './a2a-security.decorator.js';

export type GuardRef = Type<CanActivate> | CanActivate;

interface GuardInfo {
  readonly name: string;
  readonly declaration?: A2ASecurityDeclaration;
}

/** The security part of a card. */
export interface CardSecurity {
  securitySchemes?: Record<string, SecurityScheme>;
  securityRequirements?: SecurityRequirement[];
}

@Injectable()
export class SecurityInventory {
  private cached?: GuardInfo[];

  constructor(
    @Inject(A2A_GUARDS) private readonly moduleGuards: GuardRef[],
    @Inject(ApplicationConfig) private readonly appConfig: ApplicationConfig,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  /** Every guard on the A2A routes, global ones first (the order Nest runs them). */
  guards(): GuardInfo[] {
    this.cached ??= [
      ...this.appConfig.getGlobalGuards().map((g) => g.constructor as Type),
      ...this.appConfig.getGlobalRequestGuards().map((w) => w.metatype as Type),
      ...this.moduleGuards.map((g) => (typeof g === 'function' ? g : (g.constructor as Type))),
    ]
      .filter((type): type is Type => typeof type === 'function')
      .map((type) => ({ name: type.name, declaration: this.reflector.get(A2ASecurity, type) }));
    return this.cached;
  }

  /** Is any guard (declaring or not) in front of the A2A routes? */
  get guarded(): boolean {
    return this.guards().length > 0;
  }

  /**
   * The card's schemes and requirements: every scheme declared, and one requirement per
   * combination of the guards' alternatives (all guards run, so their requirements add up).
   */
  cardSecurity(): CardSecurity {
    const declared = this.guards().flatMap((g) => (g.declaration ? [g.declaration] : []));
    if (declared.length === 0) return {};
    const securitySchemes = Object.assign({}, ...declared.map((d) => d.schemes)) as Record<string, SecurityScheme>;
    let combinations: Array<Record<string, string[]>> = [{}];
    for (const declaration of declared) {
      const alternatives = declaration.alternatives ?? Object.keys(declaration.schemes).map((name) => ({ [name]: [] }));
      combinations = combinations.flatMap((combo) => alternatives.map((alt) => ({ ...combo, ...alt })));
    }
    const securityRequirements = combinations.map((combo) => ({
      schemes: Object.fromEntries(Object.entries(combo).map(([name, scopes]) => [name, { list: scopes }])),
    }));
    return { securitySchemes, securityRequirements };
  }

  /** `WWW-Authenticate` challenges for the declared schemes (a neutral one when nothing is declared). */
  challenge(): string {
    const challenges = new Set<string>();
    for (const scheme of Object.values(this.cardSecurity().securitySchemes ?? {})) {
      if (scheme.httpAuthSecurityScheme) challenges.add(`${scheme.httpAuthSecurityScheme.scheme} realm="a2a"`);
      else if (scheme.oauth2SecurityScheme || scheme.openIdConnectSecurityScheme) challenges.add('Bearer realm="a2a"');
      else if (scheme.apiKeySecurityScheme) {
        const { name, location } = scheme.apiKeySecurityScheme;
        challenges.add(`ApiKey realm="a2a", name="${name}", in="${location}"`);
      }
    }
    return challenges.size > 0 ? [...challenges].join(', ') : 'A2A realm="a2a"';
  }

  /** The security state, as the start-up report says it. */
  describe(): string {
    const guards = this.guards();
    if (guards.length === 0) return 'open: no guard, every caller shares one subject';
    const names = guards.map((g) => (g.declaration ? `${g.name} (${Object.keys(g.declaration.schemes).join(', ')})` : `${g.name} (declares no scheme)`));
    return `guarded by ${names.join(', ')}`;
  }
}
