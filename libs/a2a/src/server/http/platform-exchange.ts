/**
 * Where the platform's request and response become what the bindings see: node's message and
 * response and a {@link RoutedRequest}. Express hands over node's objects themselves (extended);
 * Fastify wraps them (`raw`), and its reply is hijacked so that Fastify leaves the answer, written
 * to node's response as on Express (SSE included), alone. Read structurally: the module imports
 * neither platform, so an app loads only the one it runs on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pathOf } from './binding-routes.js';
import type { RoutedRequest } from './http-binding.js';

/** What the module reads of a platform's request: Express's and Fastify's alike. */
interface PlatformRequest {
  readonly raw?: IncomingMessage;
  readonly params?: Record<string, unknown>;
  readonly query?: Record<string, unknown>;
  /** The matched route (Express). */
  readonly route?: { path?: unknown };
  /** The matched route (Fastify). */
  readonly routeOptions?: { url?: unknown };
  readonly originalUrl?: string;
  readonly url?: string;
}

/** A Fastify reply: the answer is written to node's response once Fastify is told to leave it. */
interface HijackableReply {
  readonly raw: ServerResponse;
  hijack(): unknown;
}

/** What a binding is told of a request, from the platform's request. */
export function routedOf(platformRequest: unknown): RoutedRequest {
  return new PlatformRoutedRequest(platformRequest);
}

/** A class, not a literal with a getter: a literal makes its getter anew (and slowly) per request. */
class PlatformRoutedRequest implements RoutedRequest {
  readonly raw: IncomingMessage;
  readonly agent?: string;

  constructor(readonly request: unknown) {
    const req = request as PlatformRequest;
    this.raw = req.raw ?? (request as IncomingMessage);
    this.agent = req.params?.agent as string | undefined;
  }

  /** Read when asked (REST only): Express 5 parses the query string at each read of `req.query`. */
  get query(): Readonly<Record<string, unknown>> {
    return (this.request as PlatformRequest).query ?? {};
  }
}

/** node's response of a platform's, which the module now answers on by itself. */
export function responseOf(platformResponse: unknown): ServerResponse {
  const reply = platformResponse as Partial<HijackableReply>;
  if (typeof reply.hijack === 'function' && reply.raw) {
    reply.hijack();
    return reply.raw;
  }
  return platformResponse as ServerResponse;
}

/**
 * Lets go of what the platform's router hangs on a request for its whole life and nothing reads once
 * the route has answered with an open stream (issue 14: memory per open stream). On Express: `next`,
 * the router's per-request continuation, which holds the router's walk, its restore closure and
 * Express's final handler (about 0.8 KB of closures and contexts a stream; only a route that goes on
 * to the next one calls it, which a stream never does), and `_parsedUrl`, parseurl's cache of the
 * URL, parsed again if anything asks. Fastify keeps neither.
 */
export function releaseRoutingState(platformRequest: unknown): void {
  const req = platformRequest as { next?: unknown; _parsedUrl?: unknown };
  // set, not deleted: a deleted property would turn the request into a slower dictionary object
  if (typeof req.next === 'function') req.next = undefined;
  if (req._parsedUrl !== undefined) req._parsedUrl = undefined;
}

/**
 * node keeps the headers a response sent (`getHeader` and `getHeaders` read them afterwards) in an
 * object with a null prototype, which V8 keeps as a dictionary, each header as a `[name, value]` array
 * of its own: about 0.9 KB a response with a handful (issue 14: memory per open stream). On Express
 * every response has one (`X-Powered-By` is set as the request enters the app), so a stream's headers
 * go there too. Once the headers are out node refuses every change to them (`setHeader`,
 * `appendHeader`, `removeHeader` throw), so an open stream swaps that dictionary for an ordinary
 * (fast) object, still without a prototype, holding the same entries in the same order: a host's
 * logger reads the same headers. An entry equal to the previous stream's (same name, same value) is
 * that one, frozen and shared: streams mostly send the same headers. Nothing changes if node's
 * property is not found.
 *
 * The text of the headers node sent (`_header`, ~0.3 KB, kept for `headersSent`) is likewise the
 * previous stream's string when it is equal (the same headers and the same `Date` second: streams
 * that open together, as after a reconnect storm), not a copy of its own.
 */
export function compactSentHeaders(res: ServerResponse): void {
  const sentText = res as unknown as { _header?: unknown };
  if (typeof sentText._header === 'string' && res.headersSent) {
    if (sentText._header === previousHeaderText) sentText._header = previousHeaderText;
    else previousHeaderText = sentText._header;
  }
  outHeadersKey ??= Object.getOwnPropertySymbols(res).find((key) => key.description === 'kOutHeaders');
  const slots = res as unknown as Record<symbol, SentHeaders | null | undefined>;
  const sent = outHeadersKey && res.headersSent ? slots[outHeadersKey] : undefined;
  if (!sent) return;
  const compact = Object.setPrototypeOf({}, null) as SentHeaders;
  for (const name of Object.keys(sent)) {
    const entry = sent[name];
    const previous = previousSentHeaders[name];
    compact[name] = previous !== undefined && previous[0] === entry[0] && previous[1] === entry[1] ? previous : Object.freeze(entry);
  }
  slots[outHeadersKey!] = compact;
  previousSentHeaders = compact;
}

/**
 * node keeps an emitter's listeners in an object with a null prototype, which V8 keeps as a
 * dictionary (~0.2 KB). An open stream's response has its listeners for good once its headers are
 * out (node's `finish`, the stream's `close`), so they move to an ordinary (fast) object, still
 * without a prototype, with the same entries in the same order: EventEmitter reads and changes it as
 * before (issue 14).
 */
export function compactListeners(emitter: object): void {
  const own = emitter as { _events?: Record<string | symbol, unknown> };
  const listeners = own._events;
  if (typeof listeners !== 'object' || listeners === null || Object.getPrototypeOf(listeners) !== null) return;
  const compact = Object.setPrototypeOf({}, null) as Record<string | symbol, unknown>;
  for (const key of Reflect.ownKeys(listeners)) compact[key] = listeners[key];
  own._events = compact;
}

/** node's headers of a response: `[name as set, value]` by lower-case name. */
type SentHeaders = Record<string, readonly [string, unknown]>;

/** node's key of a response's headers (a symbol of its own, `kOutHeaders`), found on the first response. */
let outHeadersKey: symbol | undefined;
/** The last stream's header text, which the next one shares when equal. */
let previousHeaderText = '';
/** The last stream's compacted headers, whose entries the next one shares where equal. */
let previousSentHeaders: SentHeaders = Object.setPrototypeOf({}, null) as SentHeaders;

/**
 * The still-encoded path after the interface URL: the raw path minus as many segments as the
 * matched route has before its catch-all (`*path` on Express, `*` on Fastify).
 */
export function subPathOf(platformRequest: unknown): string {
  const req = platformRequest as PlatformRequest;
  const prefixSegments = prefixSegmentsOf(String(req.route?.path ?? req.routeOptions?.url ?? ''));
  return afterSegments(pathOf(req.originalUrl ?? req.raw?.url ?? req.url ?? ''), prefixSegments);
}

/** `path` after its first `count` segments, empty segments dropped (as the router matches): `/` and the rest. */
function afterSegments(path: string, count: number): string {
  let at = 0;
  for (let skipped = 0; skipped < count; skipped++) {
    while (path.charCodeAt(at) === SLASH) at++;
    const end = path.indexOf('/', at);
    if (end < 0) return '/';
    at = end;
  }
  const rest = path.slice(at);
  // the usual path has no empty segment: nothing to split and join again (once per REST request)
  if (rest.length > 1 && rest.charCodeAt(0) === SLASH && !rest.endsWith('/') && !rest.includes('//')) return rest;
  return `/${rest.split('/').filter(Boolean).join('/')}`;
}

const SLASH = 0x2f;

/** Segments before the catch-all of each route path seen: a handful of routes, asked once per request each. */
const PREFIX_SEGMENTS = new Map<string, number>();

function prefixSegmentsOf(routePath: string): number {
  let count = PREFIX_SEGMENTS.get(routePath);
  if (count === undefined) {
    const segments = routePath.split('/').filter(Boolean);
    count = segments.length - (/^\*/.test(segments.at(-1) ?? '') ? 1 : 0);
    PREFIX_SEGMENTS.set(routePath, count);
  }
  return count;
}
