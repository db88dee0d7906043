/** Agent Card construction and serialisation (spec §4.4, §8). */
import { createHash } from 'node:crypto';
import { decode, encode } from './codec.js';
import { InvalidParamsError, type FieldViolation } from './errors.js';
import { AgentCardSchema } from './schemas.js';
import type { AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentProvider, AgentSkill, SecurityRequirement, SecurityScheme } from './types.js';

/** The well-known path of an Agent Card (RFC 8615, spec §8.2), below an origin or an agent's base path. @publicApi */
export const WELL_KNOWN_AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** What an agent declares about itself; everything else on the card is derived. @publicApi */
export interface AgentCardFields {
  name: string;
  description: string;
  version: string;
  provider?: AgentProvider;
  documentationUrl?: string;
  iconUrl?: string;
  skills: AgentSkill[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  extensions?: AgentExtension[];
  securitySchemes?: Record<string, SecurityScheme>;
  securityRequirements?: SecurityRequirement[];
}

/** What the server actually offers: the mounted bindings and the capabilities that work. */
export interface AgentCardRuntime {
  interfaces: AgentInterface[];
  capabilities: Required<Pick<AgentCapabilities, 'streaming' | 'pushNotifications' | 'extendedAgentCard'>>;
}

/**
 * Assembles a card from declared fields and runtime facts, as ProtoJSON: only schema fields
 * survive, so nothing else an agent's class or options carry can leak onto the card.
 * @throws InvalidParamsError naming each invalid card field
 */
export function buildAgentCard(fields: AgentCardFields, runtime: AgentCardRuntime): AgentCard {
  const card: AgentCard = {
    name: fields.name,
    description: fields.description,
    supportedInterfaces: runtime.interfaces,
    provider: fields.provider,
    version: fields.version,
    documentationUrl: fields.documentationUrl,
    capabilities: { ...runtime.capabilities, extensions: fields.extensions },
    securitySchemes: fields.securitySchemes,
    securityRequirements: fields.securityRequirements,
    defaultInputModes: fields.defaultInputModes,
    defaultOutputModes: fields.defaultOutputModes,
    skills: fields.skills,
    iconUrl: fields.iconUrl,
  };
  const wire = encode(AgentCardSchema, card) as unknown as AgentCard;
  // REQUIRED fields must be set (and non-empty where repeated): the decoder checks exactly that
  decode(AgentCardSchema, wire);
  return wire;
}

/** Problems of a card, for start-up validation that lists everything at once. */
export function agentCardViolations(fields: AgentCardFields, runtime: AgentCardRuntime): FieldViolation[] {
  try {
    buildAgentCard(fields, runtime);
    return [];
  } catch (error) {
    if (error instanceof InvalidParamsError) return error.fieldViolations;
    throw error;
  }
}

/** The exact bytes served for a card (and, with signing, the bytes whose signature is served). */
export function serializeAgentCard(card: AgentCard): string {
  return JSON.stringify(encode(AgentCardSchema, card));
}

/** A strong ETag for a representation: a content hash. */
export function entityTag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** Does an `If-None-Match` header match `etag` (weak comparison, `*` included)? */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === bare;
  });
}

/** Is `mediaType` among `modes`? Modes may use wildcards (a star type or subtype, as in `image/` + star); parameters are ignored. */
export function mediaTypeAccepted(mediaType: string, modes: readonly string[]): boolean {
  if (modes.includes(mediaType)) return true; // the usual case: the very text of a mode
  const [type, subtype] = mediaRange(mediaType);
  return rangesOf(modes).some(([mType, mSub]) => (mType === '*' || mType === type) && (mSub === '*' || mSub === subtype));
}

/** A media type or mode as compared: lower-cased type and subtype, parameters dropped. */
type MediaRange = readonly [type: string, subtype: string | undefined];

function mediaRange(mediaType: string): MediaRange {
  const [type, subtype] = mediaType.split(';')[0].trim().toLowerCase().split('/');
  return [type, subtype];
}

/** An agent's modes, parsed once (they are fixed when it is published), not for every part of every message. */
const parsedModes = new WeakMap<readonly string[], readonly MediaRange[]>();

function rangesOf(modes: readonly string[]): readonly MediaRange[] {
  let ranges = parsedModes.get(modes);
  if (ranges === undefined) parsedModes.set(modes, (ranges = modes.map(mediaRange)));
  return ranges;
}
