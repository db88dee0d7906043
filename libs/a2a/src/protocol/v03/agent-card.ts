/**
 * Agent Cards across versions.
 *
 * The hybrid card, for 0.3 readers of a 1.0 agent: the 1.0 card plus the members 0.3 clients look
 * for (`url`, `preferredTransport`, `protocolVersion`, `additionalInterfaces`,
 * `supportsAuthenticatedExtendedCard`, `security`, a skill's `security`). Both versions call the
 * scheme map `securitySchemes`, in different shapes, so each scheme carries both: the 1.0 oneof
 * member (`apiKeySecurityScheme: {…}`) and the 0.3 members (`type`, `in`, `name` …). Each reader
 * ignores the other's members (1.0 §5.7; 0.3 JSON Schema readers; a2a-js 0.3 reads a scheme with
 * `type` as JSON Schema form). A 1.0 verifier normalises the card through the 1.0 schema, which
 * drops every 0.3 member, so the 1.0 card's signatures still verify on the hybrid one.
 *
 * A pure 0.3 card, for this library's client: read strictly, its interfaces synthesised from
 * `url` / `preferredTransport` (default JSONRPC) / `additionalInterfaces` with the card's
 * protocol version, its security translated (either form, see {@link V03CardSecurityForm}).
 *
 * Lossy by nature: 1.0's `deviceCode` OAuth flow and `pkceRequired` have no 0.3 form; of several
 * flows a 0.3 scheme offers, 1.0 holds one (authorization code, then client credentials, then
 * password, then implicit); 0.3's `stateTransitionHistory` has no 1.0 form.
 */
import { decode, encode } from '../codec.js';
import { InvalidParamsError, VersionNotSupportedError } from '../errors.js';
import { isPlainObject } from '../json-value.js';
import { AgentCardSchema } from '../schemas.js';
import type { AgentCard, AgentInterface, AgentSkill, OAuthFlows, SecurityRequirement, SecurityScheme } from '../types.js';
import { isV03Version, V03_PROTOCOL_VERSION } from './constants.js';
import { V03AgentCardSchema, V03ProtoSecurityAgentCardSchema, V03SecuritySchemeSchema, type V03CardSecurityForm } from './schemas.js';
import type { V03AgentCard, V03AgentSkill, V03OAuthFlows, V03SecurityRequirement, V03SecurityScheme } from './types.js';

// ---- 1.0 → the hybrid card ----

/**
 * The card served to a 0.3 reader: `url` / `preferredTransport` name the first 0.3 interface of
 * `card.supportedInterfaces`, `additionalInterfaces` lists all of them.
 * @throws VersionNotSupportedError when the card lists no 0.3 interface (there is nothing a 0.3 client could call)
 */
export function toV03HybridAgentCard(card: AgentCard): Record<string, unknown> {
  const legacy = card.supportedInterfaces.filter((i) => isV03Version(i.protocolVersion));
  if (legacy.length === 0) throw new VersionNotSupportedError('This agent card lists no A2A 0.3 interface');
  const wire = encode(AgentCardSchema, card);
  const hybrid: Record<string, unknown> = {
    protocolVersion: V03_PROTOCOL_VERSION,
    ...wire,
    url: legacy[0].url,
    preferredTransport: legacy[0].protocolBinding,
    additionalInterfaces: legacy.map((i) => ({ url: i.url, transport: i.protocolBinding })),
  };
  if (card.capabilities.extendedAgentCard !== undefined) hybrid.supportsAuthenticatedExtendedCard = card.capabilities.extendedAgentCard;
  if (card.securityRequirements !== undefined && card.securityRequirements.length > 0) hybrid.security = card.securityRequirements.map(toV03Requirement);
  if (card.securitySchemes !== undefined && isPlainObject(wire.securitySchemes)) {
    const schemes = wire.securitySchemes as Record<string, Record<string, unknown>>;
    hybrid.securitySchemes = Object.fromEntries(
      Object.entries(card.securitySchemes).map(([name, scheme]) => [name, { ...encode(V03SecuritySchemeSchema, toV03Scheme(scheme)), ...schemes[name] }]),
    );
  }
  hybrid.skills = (wire.skills as Record<string, unknown>[]).map((skill, i) => {
    const requirements = card.skills[i].securityRequirements;
    return requirements !== undefined && requirements.length > 0 ? { ...skill, security: requirements.map(toV03Requirement) } : skill;
  });
  return hybrid;
}

/**
 * The card as the 0.3 REST binding answers it (`GET /v1/card`): in the 0.3 proto's JSON, whose
 * schemes and requirements have the 1.0 shapes (a2a-js 0.3's REST client reads it so).
 * @throws VersionNotSupportedError when the card lists no 0.3 interface
 */
export function toV03ProtoAgentCard(card: AgentCard): Record<string, unknown> {
  const { securitySchemes: _schemes, security: _security, skills: _skills, ...hybrid } = toV03HybridAgentCard(card);
  const wire = encode(AgentCardSchema, card);
  const proto: Record<string, unknown> = {
    ...hybrid,
    skills: (wire.skills as Record<string, unknown>[]).map((skill) => (skill.securityRequirements === undefined ? skill : { ...skill, security: skill.securityRequirements })),
  };
  if (wire.securitySchemes !== undefined) proto.securitySchemes = wire.securitySchemes;
  if (wire.securityRequirements !== undefined) proto.security = wire.securityRequirements;
  return proto;
}

function toV03Requirement(requirement: SecurityRequirement): V03SecurityRequirement {
  return Object.fromEntries(Object.entries(requirement.schemes ?? {}).map(([name, scopes]) => [name, scopes.list ?? []]));
}

/** A 1.0 scheme's 0.3 members (`type` and the rest). */
export function toV03Scheme(scheme: SecurityScheme): V03SecurityScheme {
  if (scheme.apiKeySecurityScheme) {
    const { location, name, description } = scheme.apiKeySecurityScheme;
    return { type: 'apiKey', in: location.toLowerCase() as 'header', name, description };
  }
  if (scheme.httpAuthSecurityScheme) return { type: 'http', ...scheme.httpAuthSecurityScheme };
  if (scheme.oauth2SecurityScheme) {
    const { flows, oauth2MetadataUrl, description } = scheme.oauth2SecurityScheme;
    return { type: 'oauth2', flows: toV03Flows(flows), oauth2MetadataUrl, description };
  }
  if (scheme.openIdConnectSecurityScheme) return { type: 'openIdConnect', ...scheme.openIdConnectSecurityScheme };
  return { type: 'mutualTLS', description: scheme.mtlsSecurityScheme?.description };
}

function toV03Flows(flows: OAuthFlows): V03OAuthFlows {
  const out: V03OAuthFlows = {};
  const { authorizationCode, clientCredentials, implicit, password } = flows;
  if (authorizationCode) out.authorizationCode = { authorizationUrl: authorizationCode.authorizationUrl, tokenUrl: authorizationCode.tokenUrl, refreshUrl: authorizationCode.refreshUrl, scopes: authorizationCode.scopes };
  if (clientCredentials) out.clientCredentials = clientCredentials;
  // the deprecated 1.0 flows have optional URLs that 0.3 requires: without them there is no 0.3 flow
  if (implicit?.authorizationUrl) out.implicit = { authorizationUrl: implicit.authorizationUrl, refreshUrl: implicit.refreshUrl, scopes: implicit.scopes ?? {} };
  if (password?.tokenUrl) out.password = { tokenUrl: password.tokenUrl, refreshUrl: password.refreshUrl, scopes: password.scopes ?? {} };
  return out;
}

// ---- a pure 0.3 card → 1.0 ----

/** A card without `supportedInterfaces` that names a `url`: a card of A2A 0.3 (or 0.2). */
export function isV03AgentCard(raw: unknown): boolean {
  if (!isPlainObject(raw)) return false;
  const interfaces = raw.supportedInterfaces ?? raw.supported_interfaces;
  return (interfaces === undefined || interfaces === null || (Array.isArray(interfaces) && interfaces.length === 0)) && typeof raw.url === 'string';
}

/** Which form a 0.3 card writes its security in: a scheme without `type`, or a requirement of `{ schemes }`, is the proto form. */
function securityFormOf(raw: Record<string, unknown>): V03CardSecurityForm {
  const schemes = isPlainObject(raw.securitySchemes) ? Object.values(raw.securitySchemes) : [];
  if (schemes.some((s) => isPlainObject(s) && s.type === undefined)) return 'proto';
  const skills = Array.isArray(raw.skills) ? raw.skills.filter(isPlainObject) : [];
  const requirements = [raw.security, ...skills.map((s) => s.security)].flatMap((r) => (Array.isArray(r) ? r : []));
  return requirements.some((r) => isPlainObject(r) && isPlainObject(r.schemes) && Object.values(r.schemes).every(isPlainObject)) ? 'proto' : 'json';
}

/**
 * A 0.3 card as a 1.0 one.
 * @throws InvalidParamsError naming every field that is not valid 0.3 (or, translated, not valid 1.0)
 */
export function agentCardFromV03(raw: unknown): AgentCard {
  if (!isPlainObject(raw)) throw InvalidParamsError.field('(card)', 'must be a JSON object');
  const form = securityFormOf(raw);
  const card = decode(form === 'json' ? V03AgentCardSchema : V03ProtoSecurityAgentCardSchema, raw);
  const requirements = (value: unknown[] | undefined): SecurityRequirement[] | undefined =>
    value && (form === 'json' ? (value as V03SecurityRequirement[]).map(fromV03Requirement) : (value as SecurityRequirement[]));
  const { streaming, pushNotifications, extensions } = card.capabilities;
  const v1: AgentCard = {
    name: card.name,
    description: card.description,
    supportedInterfaces: interfacesOf(card),
    provider: card.provider,
    version: card.version,
    documentationUrl: card.documentationUrl,
    capabilities: { streaming, pushNotifications, extensions, extendedAgentCard: card.supportsAuthenticatedExtendedCard },
    securitySchemes:
      card.securitySchemes &&
      (form === 'json'
        ? Object.fromEntries(Object.entries(card.securitySchemes).map(([name, scheme]) => [name, fromV03Scheme(scheme)]))
        : (card.securitySchemes as unknown as Record<string, SecurityScheme>)),
    securityRequirements: requirements(card.security),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((skill: V03AgentSkill): AgentSkill => {
      const { security, ...rest } = skill;
      return { ...rest, securityRequirements: requirements(security) };
    }),
    signatures: card.signatures,
    iconUrl: card.iconUrl,
  };
  return decode(AgentCardSchema, encode(AgentCardSchema, v1));
}

/** The preferred endpoint first, then the additional ones it does not repeat. */
function interfacesOf(card: V03AgentCard): AgentInterface[] {
  const match = /^(\d+)\.(\d+)/.exec(card.protocolVersion.trim());
  const protocolVersion = match ? `${Number(match[1])}.${Number(match[2])}` : V03_PROTOCOL_VERSION;
  const interfaces: AgentInterface[] = [];
  for (const { url, transport } of [{ url: card.url, transport: card.preferredTransport || 'JSONRPC' }, ...(card.additionalInterfaces ?? [])]) {
    if (!interfaces.some((i) => i.url === url && i.protocolBinding === transport)) interfaces.push({ url, protocolBinding: transport, protocolVersion });
  }
  return interfaces;
}

function fromV03Requirement(requirement: V03SecurityRequirement): SecurityRequirement {
  return { schemes: Object.fromEntries(Object.entries(requirement).map(([name, scopes]) => [name, { list: scopes }])) };
}

/** A 0.3 scheme as 1.0's oneof. */
export function fromV03Scheme(scheme: V03SecurityScheme): SecurityScheme {
  switch (scheme.type) {
    case 'apiKey':
      return { apiKeySecurityScheme: { location: scheme.in, name: scheme.name, description: scheme.description } };
    case 'http':
      return { httpAuthSecurityScheme: { scheme: scheme.scheme, bearerFormat: scheme.bearerFormat, description: scheme.description } };
    case 'oauth2':
      return { oauth2SecurityScheme: { flows: fromV03Flows(scheme.flows), oauth2MetadataUrl: scheme.oauth2MetadataUrl, description: scheme.description } };
    case 'openIdConnect':
      return { openIdConnectSecurityScheme: { openIdConnectUrl: scheme.openIdConnectUrl, description: scheme.description } };
    case 'mutualTLS':
      return { mtlsSecurityScheme: { description: scheme.description } };
  }
}

function fromV03Flows(flows: V03OAuthFlows): OAuthFlows {
  if (flows.authorizationCode) return { authorizationCode: flows.authorizationCode };
  if (flows.clientCredentials) return { clientCredentials: flows.clientCredentials };
  if (flows.password) return { password: flows.password };
  if (flows.implicit) return { implicit: flows.implicit };
  return {};
}
