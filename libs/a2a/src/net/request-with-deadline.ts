import type { IncomingHttpHeaders } from 'node:http';
import { finished, type Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { EgressDeadlineError, EgressError, EgressRequestError } from './egress-errors.js';
import type { PinnedDispatcher } from './pinned-dispatcher.js';
import { redactUrl } from './redact-url.js';

/** @publicApi */
export interface DeadlineRequestOptions {
  /** Default `GET`. */
  method?: Dispatcher.HttpMethod;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /**
   * Everything (resolution, connect, TLS, sending, headers, the whole body) must be done within this
   * many milliseconds, however slowly the other side trickles bytes. Webhooks: 10–30 s (spec §13.2).
   */
  deadlineMs: number;
  /** At most this many bytes of the response body are kept; the rest is not read (the socket is closed). */
  maxBodyBytes: number;
  /** The caller's own cancellation; its reason is rethrown as is. */
  signal?: AbortSignal;
}

/** @publicApi */
export interface DeadlineResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** At most `maxBodyBytes` bytes. */
  body: Buffer;
  /** The server sent more than `maxBodyBytes`: `body` is a prefix. */
  truncated: boolean;
}

/**
 * One HTTP request through a {@link PinnedDispatcher}, with an overall deadline and a cap on what is
 * read of the answer. The URL is first checked with the dispatcher's policy (scheme, userinfo, literal
 * addresses …); every address is checked again when the connection is opened. Redirects are returned
 * as they are (a 3xx with its `location` header), never followed.
 *
 * @throws EgressRefusedError the policy refused the URL or what it resolves to (nothing was sent there).
 * @throws EgressDeadlineError `deadlineMs` elapsed.
 * @throws EgressRequestError any other failure below HTTP (refused connection, reset, TLS, connect timeout).
 * @publicApi
 */
export async function requestWithDeadline(
  dispatcher: PinnedDispatcher,
  url: string | URL,
  options: DeadlineRequestOptions,
): Promise<DeadlineResponse> {
  const target = dispatcher.policy.checkUrl(url);
  // one controller for the deadline and the caller's signal, its timer cleared at the end (a timeout
  // signal would keep its timer until the deadline, and AbortSignal.any costs more than this)
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.deadlineMs);
  timer.unref();
  const caller = options.signal;
  const onCallerAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) onCallerAbort();
  else caller?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    const response = await dispatcher.request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: options.method ?? 'GET',
      ...(options.headers === undefined ? {} : { headers: options.headers }),
      ...(options.body === undefined ? {} : { body: options.body }),
      signal: controller.signal,
    });
    const { body, truncated } = await readAtMost(response.body, options.maxBodyBytes);
    return { statusCode: response.statusCode, headers: response.headers, body, truncated };
  } catch (err) {
    if (caller?.aborted) throw caller.reason;
    if (timedOut) throw new EgressDeadlineError(redactUrl(target), options.deadlineMs);
    if (err instanceof EgressError) throw err;
    throw EgressRequestError.from(redactUrl(target), err);
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onCallerAbort);
  }
}

/**
 * Reads at most `limit` bytes, then stops reading (destroying the stream closes the connection).
 * Listeners, not `for await`: an async iterator per answer costs more than the answer of a webhook.
 */
function readAtMost(stream: Readable, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const limit = Number.isNaN(maxBytes) ? 0 : Math.max(0, Math.min(Math.floor(maxBytes), Number.MAX_SAFE_INTEGER));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      const room = limit - size;
      if (chunk.length <= room) {
        chunks.push(chunk);
        size += chunk.length;
        return;
      }
      if (room > 0) chunks.push(chunk.subarray(0, room));
      size = limit;
      stream.off('data', onData);
      resolve({ body: Buffer.concat(chunks, size), truncated: true });
      stream.destroy(); // its premature close comes after the answer: ignored
    };
    stream.on('data', onData);
    finished(stream, (error) => (error ? reject(error) : resolve({ body: Buffer.concat(chunks, size), truncated: false })));
  });
}
