/**
 * How a guard says what it enforces, so the Agent Card can publish it. A guard that declares
 * nothing publishes nothing: the card never guesses.
 */
import { Reflector } from '@nestjs/core';
import type { OAuthFlows, SecurityScheme } from '../../protocol/types.js';

/** @publicApi */
export interface A2ASecurityDeclaration {
  /** The schemes this guard checks, by the name the card gives them. */
  schemes: Record<string, SecurityScheme>;
  /**
   * The alternatives the guard accepts: each maps scheme names to required scopes, all needed
   * together. Default: each scheme alone, with no scopes.
   */
  alternatives?: Array<Record<string, string[]>>;
}

/**
 * Class decorator for a guard: `@A2ASecurity({ schemes: { apiKey: SecuritySchemes.apiKey('X-API-Key') } })`.
 * @publicApi
 */
export const A2ASecurity = Reflector.createDecorator<A2ASecurityDeclaration>();

/** Builders for the scheme objects of the card (spec §4.5). @publicApi */
export const SecuritySchemes = {
  apiKey: (name: string, location: 'header' | 'query' | 'cookie' = 'header', description?: string): SecurityScheme => ({
    apiKeySecurityScheme: { name, location, description },
  }),
  bearer: (bearerFormat?: string, description?: string): SecurityScheme => ({
    httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat, description },
  }),
  basic: (description?: string): SecurityScheme => ({ httpAuthSecurityScheme: { scheme: 'Basic', description } }),
  oauth2: (flows: OAuthFlows, oauth2MetadataUrl?: string, description?: string): SecurityScheme => ({
    oauth2SecurityScheme: { flows, oauth2MetadataUrl, description },
  }),
  openIdConnect: (openIdConnectUrl: string, description?: string): SecurityScheme => ({
    openIdConnectSecurityScheme: { openIdConnectUrl, description },
  }),
  mutualTls: (description?: string): SecurityScheme => ({ mtlsSecurityScheme: { description } }),
};
