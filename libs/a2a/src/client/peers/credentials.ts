/**
 * Credentials by name. Options name a credential (`credential: 'research-token'`); at every call
 * the `CredentialResolver` turns the name into the secret and a `CredentialStrategy` turns the
 * secret into headers. Secrets are never stored in options, never kept by the provider between
 * calls, never logged and never put in an error message.
 */
import { DiscoveryService } from '@nestjs/core';
import type { A2AHeaderValues, A2ARequestInfo } from '../headers.js';
import { A2AClientError } from '../client-errors.js';

/** Who a call is made for: the caller of the agent that uses the tool (an `A2ACaller` fits). @publicApi */
export interface PeerScope {
  readonly subject: string;
  readonly tenant?: string;
}

/** What a resolver is told about the credential it is asked for. @publicApi */
export interface CredentialRequest {
  /** The peer the call goes to. */
  readonly peer: string;
  /** Who the call is made for: a resolver may hand out per-caller credentials. */
  readonly scope: PeerScope;
}

/**
 * Turns a credential's name into its secret, at call time (so rotation needs no restart).
 * Returning `undefined` (or `''`) means "not set": the call fails with `TOOL_UNAVAILABLE`.
 *
 * The default, {@link EnvCredentialResolver}, reads the environment. Bring your own (Nest's
 * `ConfigService`, a vault, a token exchange) with `A2AModule.forRoot({ credentialResolver: MyResolver })`.
 * @publicApi
 */
export interface CredentialResolver {
  resolve(name: string, request: CredentialRequest): string | undefined | Promise<string | undefined>;
  /** Where the secret of `name` is looked for, for messages (`environment variable RESEARCH_TOKEN`). Never the secret. */
  describe?(name: string): string;
}

/** Injection token of the {@link CredentialResolver}. @publicApi */
export const CredentialResolver = Symbol('A2A:CredentialResolver');

/**
 * The environment variable the default resolver reads for a credential: the prefix, then the name
 * upper-cased with every character other than a letter or digit turned into `_`
 * (`research-token` → `RESEARCH_TOKEN`, `crm.api-key` → `CRM_API_KEY`).
 * @publicApi
 */
export function credentialEnvName(name: string, prefix = ''): string {
  return `${prefix}${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * The default resolver: `process.env`, read at every call (see {@link credentialEnvName}).
 * @publicApi
 */
export class EnvCredentialResolver implements CredentialResolver {
  constructor(
    private readonly prefix = '',
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  resolve(name: string): string | undefined {
    const value = this.env[credentialEnvName(name, this.prefix)];
    return value === '' ? undefined : value;
  }

  describe(name: string): string {
    return `environment variable ${credentialEnvName(name, this.prefix)}`;
  }
}

/**
 * The credential a call needs is not set. Names the credential and where it was looked for, never
 * a value.
 * @publicApi
 */
export class CredentialNotFoundError extends A2AClientError {
  constructor(
    readonly credential: string,
    where?: string,
  ) {
    super(`credential "${credential}" is not set${where === undefined ? '' : ` (looked for in the ${where})`}`);
  }
}

/** What a strategy is given for one request. @publicApi */
export interface CredentialContext {
  readonly peer: string;
  /** The credential's name, when the peer names one. */
  readonly credential?: string;
  readonly scope: PeerScope;
  /** The request about to be sent (operation, URL, attempt). */
  readonly request: A2ARequestInfo;
  /** The peer's `apiKeyHeader` (default `X-API-Key`). */
  readonly apiKeyHeader: string;
  /**
   * The credential's secret, from the resolver, now.
   * @throws CredentialNotFoundError when it is not set (or the peer names no credential)
   */
  secret(): Promise<string>;
}

/**
 * Turns a credential into request headers. Built in: `bearer` and `apiKey`. A custom one (a
 * signature, a token exchange, …) is an ordinary provider marked `@A2ACredentialStrategy(name)`;
 * peers use it with `scheme: name`.
 * @publicApi
 */
export interface CredentialStrategy {
  headers(context: CredentialContext): A2AHeaderValues | undefined | Promise<A2AHeaderValues | undefined>;
}

/** `Authorization: Bearer <secret>`. @publicApi */
export class BearerCredentialStrategy implements CredentialStrategy {
  async headers(context: CredentialContext): Promise<A2AHeaderValues> {
    return { authorization: `Bearer ${await context.secret()}` };
  }
}

/** The secret in the peer's `apiKeyHeader` (default `X-API-Key`). @publicApi */
export class ApiKeyCredentialStrategy implements CredentialStrategy {
  async headers(context: CredentialContext): Promise<A2AHeaderValues> {
    return { [context.apiKeyHeader]: await context.secret() };
  }
}

/**
 * Marks a provider implementing {@link CredentialStrategy} as the strategy of a scheme name:
 * `@A2ACredentialStrategy('hmac') @Injectable() class HmacStrategy implements CredentialStrategy`.
 * @publicApi
 */
export const A2ACredentialStrategy = DiscoveryService.createDecorator<string>();

