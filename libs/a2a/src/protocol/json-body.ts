/** Reading a JSON request body safely: media type, UTF-8, nesting depth (spec §13.4, §14.1.1). */
import { InvalidRequestError, JsonParseError, UnsupportedMediaTypeError } from './errors.js';

export const A2A_JSON = 'application/a2a+json';
export const JSON_MEDIA_TYPE = 'application/json';

/** The media types both HTTP bindings take for a JSON body. */
export const JSON_BODY_TYPES: readonly string[] = [JSON_MEDIA_TYPE, A2A_JSON];

/**
 * Checks a request's Content-Type: one of `accepted`, UTF-8 if a charset is given.
 * An absent Content-Type is accepted only when the body is empty.
 * @throws UnsupportedMediaTypeError
 */
export function checkContentType(header: string | undefined, accepted: readonly string[], hasBody: boolean): void {
  if (!header) {
    if (hasBody) throw new UnsupportedMediaTypeError(`A request body needs a Content-Type: ${accepted.join(' or ')}`);
    return;
  }
  if (accepted.includes(header)) return; // the usual header, a bare accepted type: nothing to split
  const [type, ...params] = header.split(';').map((p) => p.trim().toLowerCase());
  if (!accepted.includes(type)) {
    throw new UnsupportedMediaTypeError(`Content-Type ${JSON.stringify(type.slice(0, 80))} is not supported; use ${accepted.join(' or ')}`);
  }
  const charset = params.find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
  if (charset && charset !== 'utf-8' && charset !== 'utf8') {
    throw new UnsupportedMediaTypeError(`charset ${JSON.stringify(charset.slice(0, 40))} is not supported; A2A bodies are UTF-8`);
  }
}

/** The media type of a JSON answer: `application/a2a+json` when the request used or accepts it. */
export function responseMediaType(contentType: string | undefined, accept: string | undefined): string {
  const usesA2A = (contentType !== undefined && A2A_JSON_ANYCASE.test(contentType)) || (accept !== undefined && A2A_JSON_ANYCASE.test(accept));
  return usesA2A ? A2A_JSON : JSON_MEDIA_TYPE;
}

/** {@link A2A_JSON} anywhere in a header, in any case (a test, not two lower-cased copies per request). */
const A2A_JSON_ANYCASE = /application\/a2a\+json/i;

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses raw body bytes as JSON: strict UTF-8, nesting at most `maxDepth` (checked before
 * parsing, so a hostile body costs one linear scan).
 * @throws JsonParseError, InvalidRequestError (too deep)
 */
export function parseJsonBody(bytes: Uint8Array, maxDepth: number): unknown {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new JsonParseError('Invalid JSON payload: the body is not valid UTF-8');
  }
  if (!openBracketsAtMost(text, maxDepth) && textDepth(text) > maxDepth) throw tooDeep(maxDepth);
  try {
    return JSON.parse(text);
  } catch {
    throw new JsonParseError();
  }
}

const OPEN_BRACKETS = ['{', '['] as const;

/**
 * Whether `text` holds at most `limit` opening brackets, strings included: then no nesting can be
 * deeper, and the exact scan is spared (found by the engine's native search, not a loop in JS).
 */
function openBracketsAtMost(text: string, limit: number): boolean {
  let count = 0;
  for (const bracket of OPEN_BRACKETS) {
    for (let at = text.indexOf(bracket); at >= 0; at = text.indexOf(bracket, at + 1)) {
      if (++count > limit) return false;
    }
  }
  return true;
}

/** Deepest bracket nesting of JSON text, ignoring brackets inside strings. */
function textDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/**
 * Depth of an already-parsed value (a body parsed by the host app's own JSON parser).
 * Iterative, so a deep value cannot exhaust the stack.
 * @throws InvalidRequestError when deeper than `maxDepth`
 */
export function checkJsonDepth(value: unknown, maxDepth: number): void {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > maxDepth) throw tooDeep(maxDepth);
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
}

function tooDeep(maxDepth: number): InvalidRequestError {
  return new InvalidRequestError(`JSON nesting is deeper than the limit of ${maxDepth}`);
}
