/** Reading JSON bodies: media type, UTF-8, nesting depth (spec digest §1.1 media type, §2.2 -32700). */
import { describe, expect, it } from '@jest/globals';
import { InvalidRequestError, JsonParseError, UnsupportedMediaTypeError } from './errors.js';
import { A2A_JSON, JSON_BODY_TYPES, JSON_MEDIA_TYPE, checkContentType, checkJsonDepth, parseJsonBody, responseMediaType } from './json-body.js';
import { thrown } from '../testing/thrown.js';


const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** `depth` nested arrays around a number, built without recursion. */
function deepArray(depth: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('media types', () => {
  it('application/json and application/a2a+json', () => {
    expect(JSON_MEDIA_TYPE).toBe('application/json');
    expect(A2A_JSON).toBe('application/a2a+json');
    expect(JSON_BODY_TYPES).toEqual(['application/json', 'application/a2a+json']);
  });
});

describe('checkContentType', () => {
  it.each<{ header: string | undefined; hasBody: boolean }>([
    { header: 'application/json', hasBody: true },
    { header: 'application/a2a+json', hasBody: true },
    { header: 'application/json; charset=utf-8', hasBody: true },
    { header: 'application/a2a+json;charset=UTF-8', hasBody: true },
    { header: 'Application/JSON; Charset="utf-8"', hasBody: true },
    { header: 'application/json; charset=utf8', hasBody: true },
    { header: 'application/json; boundary=x', hasBody: true },
    { header: undefined, hasBody: false },
    { header: '', hasBody: false },
  ])('accepts $header (body: $hasBody)', ({ header, hasBody }) => {
    expect(() => checkContentType(header, JSON_BODY_TYPES, hasBody)).not.toThrow();
  });

  it.each<{ header: string | undefined; hasBody: boolean; mentions: string }>([
    { header: 'application/json; charset=latin1', hasBody: true, mentions: 'latin1' },
    { header: 'application/json; charset=iso-8859-1', hasBody: true, mentions: 'iso-8859-1' },
    { header: 'application/json; charset=utf-16', hasBody: true, mentions: 'utf-16' },
    { header: 'text/plain', hasBody: true, mentions: 'text/plain' },
    { header: 'application/x-www-form-urlencoded', hasBody: true, mentions: 'application/x-www-form-urlencoded' },
    { header: 'application/problem+json', hasBody: true, mentions: 'application/problem+json' },
    { header: 'application/jsonp', hasBody: true, mentions: 'application/jsonp' },
    { header: 'text/plain', hasBody: false, mentions: 'text/plain' },
    { header: undefined, hasBody: true, mentions: 'application/json' },
    { header: '', hasBody: true, mentions: 'application/json' },
  ])('refuses $header (body: $hasBody) with 415', ({ header, hasBody, mentions }) => {
    const error = thrown(() => checkContentType(header, JSON_BODY_TYPES, hasBody));
    expect(error).toBeInstanceOf(UnsupportedMediaTypeError);
    expect((error as UnsupportedMediaTypeError).httpStatus).toBe(415);
    expect((error as UnsupportedMediaTypeError).message).toContain(mentions);
  });

  it('JSON-RPC takes only what it is given as accepted', () => {
    expect(() => checkContentType('application/json', ['application/json'], true)).not.toThrow();
    expect(thrown(() => checkContentType('application/a2a+json', ['application/json'], true))).toBeInstanceOf(UnsupportedMediaTypeError);
  });
});

describe('responseMediaType', () => {
  it.each<{ contentType: string | undefined; accept: string | undefined; expected: string }>([
    { contentType: undefined, accept: undefined, expected: 'application/json' },
    { contentType: 'application/json', accept: undefined, expected: 'application/json' },
    { contentType: 'application/a2a+json', accept: undefined, expected: 'application/a2a+json' },
    { contentType: 'Application/A2A+JSON; charset=utf-8', accept: undefined, expected: 'application/a2a+json' },
    { contentType: undefined, accept: 'application/a2a+json', expected: 'application/a2a+json' },
    { contentType: 'application/json', accept: 'application/a2a+json, application/json;q=0.5', expected: 'application/a2a+json' },
    { contentType: undefined, accept: '*/*', expected: 'application/json' },
    { contentType: 'application/json', accept: 'application/json', expected: 'application/json' },
  ])('Content-Type $contentType, Accept $accept → $expected', ({ contentType, accept, expected }) => {
    expect(responseMediaType(contentType, accept)).toBe(expected);
  });
});

describe('parseJsonBody', () => {
  it.each<{ name: string; text: string; expected: unknown }>([
    { name: 'an object', text: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}', expected: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 't' } } },
    { name: 'non-ASCII text', text: '{"text":"Grüße, 東京 ✓ 😀"}', expected: { text: 'Grüße, 東京 ✓ 😀' } },
    { name: 'a UTF-8 BOM', text: '\uFEFF{"a":1}', expected: { a: 1 } },
    { name: 'a scalar', text: '42', expected: 42 },
    { name: 'whitespace around', text: ' \n {"a":[]} \n', expected: { a: [] } },
  ])('parses $name', ({ text, expected }) => {
    expect(parseJsonBody(utf8(text), 64)).toEqual(expected);
  });

  it.each<{ name: string; bytes: number[] }>([
    { name: 'a lone 0xFF byte', bytes: [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d] },
    { name: 'Latin-1 "ü"', bytes: [...utf8('{"a":"gr'), 0xfc, ...utf8('n"}')] },
    { name: 'an overlong "/"', bytes: [0x22, 0xc0, 0xaf, 0x22] },
    { name: 'an encoded surrogate', bytes: [0x22, 0xed, 0xa0, 0x80, 0x22] },
    { name: 'a truncated sequence', bytes: [0x22, 0xe2, 0x9c, 0x22] },
  ])('invalid UTF-8 ($name) → JsonParseError', ({ bytes }) => {
    const error = thrown(() => parseJsonBody(new Uint8Array(bytes), 64));
    expect(error).toBeInstanceOf(JsonParseError);
    expect((error as JsonParseError).jsonRpcCode).toBe(-32700);
    expect((error as JsonParseError).message).toContain('UTF-8');
  });

  it.each(['', '{', '{"a":', "{'a':1}", '{"a":1,}', 'undefined', '{"a":1}{"b":2}', 'NaN', '[1,2'])('malformed JSON %j → JsonParseError', (text) => {
    const error = thrown(() => parseJsonBody(utf8(text), 64));
    expect(error).toBeInstanceOf(JsonParseError);
    expect((error as JsonParseError).toJsonRpc()).toEqual({ code: -32700, message: 'Invalid JSON payload' });
  });

  it.each<{ text: string; maxDepth: number; ok: boolean }>([
    { text: '1', maxDepth: 0, ok: true },
    { text: '{}', maxDepth: 0, ok: false },
    { text: '{}', maxDepth: 1, ok: true },
    { text: '{"a":{"b":1}}', maxDepth: 2, ok: true },
    { text: '{"a":{"b":{"c":1}}}', maxDepth: 2, ok: false },
    { text: '[[]]', maxDepth: 2, ok: true },
    { text: '[[[]]]', maxDepth: 2, ok: false },
    { text: '[{},{},[1],{"a":2}]', maxDepth: 2, ok: true },
    { text: '{"a":"[[[[[[[[{{{{{{"}', maxDepth: 1, ok: true },
    { text: '{"a":"\\"[[[[[[[["}', maxDepth: 1, ok: true },
    { text: '{"a":"\\\\","b":[[[1]]]}', maxDepth: 3, ok: false },
    { text: '{"a\\"[[[":1}', maxDepth: 1, ok: true },
  ])('depth limit $maxDepth on $text: ok $ok', ({ text, maxDepth, ok }) => {
    if (ok) {
      expect(parseJsonBody(utf8(text), maxDepth)).toEqual(JSON.parse(text));
    } else {
      const error = thrown(() => parseJsonBody(utf8(text), maxDepth));
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect((error as InvalidRequestError).message).toContain(String(maxDepth));
    }
  });

  it('refuses a 100000-deep body before JSON.parse, without a stack overflow', () => {
    const text = '['.repeat(100_000) + ']'.repeat(100_000);
    const error = thrown(() => parseJsonBody(utf8(text), 64));
    expect(error).toBeInstanceOf(InvalidRequestError);
  });
});

describe('checkJsonDepth', () => {
  it.each<{ name: string; value: unknown; maxDepth: number; ok: boolean }>([
    { name: 'a scalar at limit 0', value: 'x', maxDepth: 0, ok: true },
    { name: 'null at limit 0', value: null, maxDepth: 0, ok: true },
    { name: '{} at limit 0', value: {}, maxDepth: 0, ok: false },
    { name: '{} at limit 1', value: {}, maxDepth: 1, ok: true },
    { name: 'depth 2 at limit 2', value: { a: { b: 1 } }, maxDepth: 2, ok: true },
    { name: 'depth 3 at limit 2', value: { a: { b: { c: 1 } } }, maxDepth: 2, ok: false },
    { name: 'deep in the last branch', value: { a: 1, b: [1, 2, { c: [[]] }] }, maxDepth: 3, ok: false },
    { name: 'strings with brackets', value: { a: '[[[[{{{{' }, maxDepth: 1, ok: true },
    { name: 'same depth as parseJsonBody counts ([[1]] = 2)', value: [[1]], maxDepth: 2, ok: true },
  ])('$name: ok $ok', ({ value, maxDepth, ok }) => {
    if (ok) expect(() => checkJsonDepth(value, maxDepth)).not.toThrow();
    else expect(thrown(() => checkJsonDepth(value, maxDepth))).toBeInstanceOf(InvalidRequestError);
  });

  it('is iterative: a 100000-deep value is refused with InvalidRequestError, not a RangeError', () => {
    const error = thrown(() => checkJsonDepth(deepArray(100_000), 64));
    expect(error).toBeInstanceOf(InvalidRequestError);
  });

  it('is iterative: a 100000-deep value under a higher limit is walked to the end', () => {
    expect(() => checkJsonDepth(deepArray(100_000), 100_000)).not.toThrow();
    expect(thrown(() => checkJsonDepth(deepArray(100_000), 99_999))).toBeInstanceOf(InvalidRequestError);
  });

  it('a 100000-deep object chain too', () => {
    let value: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) value = { next: value };
    expect(thrown(() => checkJsonDepth(value, 32))).toBeInstanceOf(InvalidRequestError);
  });
});
