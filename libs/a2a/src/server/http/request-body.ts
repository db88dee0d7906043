/**
 * The body of an A2A request, read once with the module's limits (size, depth, strict UTF-8)
 * whatever its content type and whatever parser the host app has. On Express and Fastify the module
 * reads it ahead of the app's own parsers (body-read-ahead.ts); elsewhere the binding reads it, or
 * uses what a host parser made of it. What was read is kept per request, so an error answer given
 * before the binding ran (a guard's) can still carry the JSON-RPC id.
 */
import type { IncomingMessage } from 'node:http';
import { A2AError, JsonParseError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../protocol/errors.js';
import { JSON_BODY_TYPES, checkContentType, checkJsonDepth, parseJsonBody } from '../../protocol/json-body.js';

type HostRequest = IncomingMessage & { body?: unknown; rawBody?: Buffer };

export interface BodyLimits {
  readonly maxBodyBytes: number;
  readonly maxJsonDepth: number;
}

/** A body read by the module: its bytes, or why they could not be read; parsed at most once. */
class ReadBody {
  private parsed?: { value: unknown } | { error: unknown };

  constructor(private readonly read: BodyRead) {}

  /** The parsed body, undefined when not parsed (yet) or unparsable. */
  get value(): unknown {
    return this.parsed && 'value' in this.parsed ? this.parsed.value : undefined;
  }

  /** @throws what reading or parsing failed with */
  json(maxJsonDepth: number): unknown {
    if ('error' in this.read) throw this.read.error;
    const bytes = this.read.bytes;
    if (!this.parsed) {
      try {
        this.parsed = { value: bytes.length === 0 ? undefined : parseJsonBody(bytes, maxJsonDepth) };
      } catch (error) {
        this.parsed = { error };
      }
    }
    if ('error' in this.parsed) throw this.parsed.error;
    return this.parsed.value;
  }
}

/**
 * Where a request keeps what the module read of its body: a property of its own rather than a
 * `WeakMap` entry, which cost every request a set, a delete and each read a hash lookup, and the
 * young-generation GC an ephemeron per request in flight (issue 14).
 */
const READ_BODY = Symbol('nestjs-a2a.readBody');

type WithReadBody = IncomingMessage & { [READ_BODY]?: ReadBody };

const readOf = (req: IncomingMessage): ReadBody | undefined => (req as WithReadBody)[READ_BODY];

/** Is there a body at all (as `type-is` decides: a length or a transfer-encoding)? */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Reads the whole body of `req` within the limit and keeps it (or why it could not be read) for
 * the binding, then calls `done`. Never fails: a refusal is answered by the binding, after the
 * guards ran. A body over the limit is drained first, as the host's parsers do, so the answer can
 * be sent. A callback, not a promise: it runs on every A2A request, in front of the platform's
 * router hooks, where a promise and its turn cost more than the rest of the reading.
 */
export function readBodyAhead(req: IncomingMessage, limits: BodyLimits, done: () => void): void {
  // `Content-Length: 0` is read too (as nothing): the host's parsers take it for a body, and one
  // of them would otherwise answer it in its own shape (an empty deflate body fails to inflate)
  if (readOf(req) !== undefined || (!hasBody(req) && req.headers['content-length'] === undefined)) return done();
  readAll(req, limits.maxBodyBytes, (read) => {
    (req as WithReadBody)[READ_BODY] = new ReadBody(read);
    done();
  });
}

/**
 * The parsed JSON body, or undefined when the request has none: what the module read, else what
 * the host's own parser made of it (re-parsed from `req.rawBody` when the app keeps raw bodies,
 * checked for depth), else read now. At once (no promise) when the body is known already, as it
 * is on Express and Fastify.
 * @throws JsonParseError, PayloadTooLargeError, InvalidRequestError (too deep), UnsupportedMediaTypeError (compressed)
 */
export function readJsonBody(req: HostRequest, limits: BodyLimits): { readonly known: unknown } | Promise<unknown> {
  const read = readOf(req);
  if (read) return { known: read.json(limits.maxJsonDepth) };
  if (req.readableEnded || req.complete) return { known: hostParsed(req, limits) };
  return new Promise<void>((resolve) => readBodyAhead(req, limits, resolve)).then(() => readOf(req)?.json(limits.maxJsonDepth));
}

/**
 * Lets go of what was read of `req`'s body, and of the platform request's `body` when it is the one
 * {@link exposeBody} set (a host parser's own is left alone): once its stream is open, an error
 * goes out as an event carrying nothing of the request, and the body would otherwise live as long
 * as the stream.
 */
export function forgetBody(req: HostRequest, platformRequest: { body?: unknown } = req): void {
  const read = readOf(req);
  if (!read) return;
  (req as WithReadBody)[READ_BODY] = undefined;
  if (platformRequest.body !== undefined && platformRequest.body === read.value) platformRequest.body = undefined;
}

/**
 * Lets go of what was read of `req`'s body once its answer is written (the platform request's
 * `body` stays, for the host's interceptors): the request may outlive its answer (a keep-alive
 * connection's parser holds its last request until the next one comes), and the body with it.
 */
export function bodyAnswered(req: IncomingMessage): void {
  // only where a body was read: a request that never had the property does not get one
  if (readOf(req) !== undefined) (req as WithReadBody)[READ_BODY] = undefined;
}

/**
 * The JSON body as far as it is known now, without reading anything: for an answer given before
 * the binding ran (a guard refused the request). Undefined when unknown or unreadable.
 */
export function bodyKnownSoFar(req: HostRequest, limits: BodyLimits): unknown {
  try {
    const read = readOf(req);
    if (read) return read.json(limits.maxJsonDepth);
    return req.readableEnded || req.complete ? hostParsed(req, limits) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sets `body` on the platform's request (`req` itself on Express, Fastify's wrapper of it) to the
 * JSON body read ahead, as the host's JSON parser would have: host guards and interceptors that
 * look at it keep working. Left alone for other media types and bad bodies (the binding refuses those).
 */
export function exposeBody(req: HostRequest, limits: BodyLimits, platformRequest: { body?: unknown } = req): void {
  try {
    checkContentType(req.headers['content-type'], JSON_BODY_TYPES, true);
  } catch {
    return;
  }
  const body = bodyKnownSoFar(req, limits);
  if (body !== undefined) platformRequest.body = body;
}

/** The body as the host app's parser left it. */
function hostParsed(req: HostRequest, limits: BodyLimits): unknown {
  if (req.rawBody) return req.rawBody.length === 0 ? undefined : parseJsonBody(req.rawBody, limits.maxJsonDepth);
  if (req.body === undefined || (typeof req.body === 'object' && req.body !== null && Object.keys(req.body).length === 0 && !hasBody(req))) {
    return undefined;
  }
  if (typeof req.body !== 'object' || Buffer.isBuffer(req.body)) throw new JsonParseError();
  checkJsonDepth(req.body, limits.maxJsonDepth);
  return req.body;
}

/** What reading a body gave: its bytes, or why not. */
type BodyRead = { bytes: Buffer } | { error: A2AError };

/** Reads the body's bytes, at most `max` of them (an identity encoding only), and hands over what it got. */
function readAll(req: IncomingMessage, max: number, done: (read: BodyRead) => void): void {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') {
    const error = new UnsupportedMediaTypeError(`Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not supported`);
    return void drained(req).then(() => done({ error }));
  }
  if (Number(req.headers['content-length'] ?? 0) > max) return void drained(req).then(() => done({ error: tooLarge(max) }));
  const chunks: Buffer[] = [];
  let size = 0;
  const cleanup = () => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
    req.off('aborted', onError);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > max) {
      cleanup();
      void drained(req).then(() => done({ error: tooLarge(max) }));
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => {
    cleanup();
    // a small body mostly comes in one chunk: no copy of it then
    done({ bytes: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size) });
  };
  const onError = () => {
    cleanup();
    done({ error: new JsonParseError('The request body could not be read') });
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
  req.on('aborted', onError);
}

/** Resolves once the rest of the body is read and dropped (or the request is gone). */
function drained(req: IncomingMessage): Promise<void> {
  if (req.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      req.off('end', done);
      req.off('close', done);
      req.off('error', done);
      resolve();
    };
    req.on('end', done);
    req.on('close', done);
    req.on('error', done);
    req.resume();
  });
}

function tooLarge(max: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`The request body is larger than the limit of ${max} bytes`);
}
