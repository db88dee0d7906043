/** Parts from plain values, so an executor writes `textPart('hi')` rather than the wire shape. */
import type { JsonValue, Part } from '../protocol/types.js';

/** A text part. @publicApi */
export function textPart(text: string, mediaType?: string): Part {
  return mediaType === undefined ? { text } : { text, mediaType };
}

/** A structured-data part (`application/json` unless said otherwise). @publicApi */
export function dataPart(data: JsonValue, mediaType = 'application/json'): Part {
  return { data, mediaType };
}

/** What a file part is made from: its bytes (sent inline as base64), or a URL where it can be fetched. @publicApi */
export type FileInput = ({ readonly bytes: Uint8Array | string } | { readonly url: string }) & {
  readonly filename?: string;
  /** Default `application/octet-stream` for bytes; none for a URL. */
  readonly mediaType?: string;
};

/** A file part: inline bytes (a string is taken as UTF-8) or a URL. @publicApi */
export function filePart(file: FileInput): Part {
  const named = { ...(file.filename === undefined ? {} : { filename: file.filename }) };
  if ('url' in file) return { url: file.url, ...named, ...(file.mediaType === undefined ? {} : { mediaType: file.mediaType }) };
  const bytes = typeof file.bytes === 'string' ? Buffer.from(file.bytes, 'utf8') : Buffer.from(file.bytes);
  return { raw: bytes.toString('base64'), ...named, mediaType: file.mediaType ?? 'application/octet-stream' };
}
