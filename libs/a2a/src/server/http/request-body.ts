/**
 * Reads a JSON request body with the module's limits. The host app's own JSON parser may have read
 * it already (Nest registers one by default for `application/json`): then its result is used,
 * re-parsed from `req.rawBody` when the app keeps raw bodies, and checked for depth.
 */
import type { IncomingMessage } from 'node:http';
import { JsonParseError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../protocol/errors.js';
import { checkJsonDepth, parseJsonBody } from '../../protocol/json-body.js';

type HostRequest = IncomingMessage & { body?: unknown; rawBody?: Buffer };

export interface BodyLimits {
  readonly maxBodyBytes: number;
  readonly maxJsonDepth: number;
}

/** Is there a body at all (as `type-is` decides: a length or a transfer-encoding)? */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The parsed JSON body, or undefined when the request has none.
 * @throws JsonParseError, PayloadTooLargeError, InvalidRequestError (too deep), UnsupportedMediaTypeError (compressed)
 */
export async function readJsonBody(req: HostRequest, limits: BodyLimits): Promise<unknown> {
  if (req.readableEnded || req.complete) {
    // consumed by the host's parser
    if (req.rawBody) return req.rawBody.length === 0 ? undefined : parseJsonBody(req.rawBody, limits.maxJsonDepth);
    if (req.body === undefined || (typeof req.body === 'object' && req.body !== null && Object.keys(req.body).length === 0 && !hasBody(req))) {
      return undefined;
    }
    if (typeof req.body !== 'object' || Buffer.isBuffer(req.body)) throw new JsonParseError();
    checkJsonDepth(req.body, limits.maxJsonDepth);
    return req.body;
  }
  if (!hasBody(req)) return undefined;
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') throw new UnsupportedMediaTypeError(`Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not supported`);
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limits.maxBodyBytes) throw tooLarge(limits.maxBodyBytes);
  const bytes = await readAll(req, limits.maxBodyBytes);
  return bytes.length === 0 ? undefined : parseJsonBody(bytes, limits.maxJsonDepth);
}

function readAll(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        cleanup();
        req.resume(); // drain the rest so the answer can still be sent
        reject(tooLarge(max));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = () => {
      cleanup();
      reject(new JsonParseError('The request body could not be read'));
    };
    const onAborted = onError;
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

function tooLarge(max: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`The request body is larger than the limit of ${max} bytes`);
}
