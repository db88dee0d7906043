/** Service parameters: `A2A-Version` and `A2A-Extensions` (spec §3.2.6, §3.6, §14.2). */
import { ExtensionSupportRequiredError, VersionNotSupportedError } from './errors.js';
import type { AgentExtension } from './types.js';

export const VERSION_HEADER = 'A2A-Version';
export const EXTENSIONS_HEADER = 'A2A-Extensions';

/** What an absent or empty `A2A-Version` means (spec §3.6.2). */
export const IMPLICIT_VERSION = '0.3';

/**
 * The `Major.Minor` a request asks for, patch ignored; `0.3` when absent.
 * @throws VersionNotSupportedError when the value is malformed or not in `supported`.
 */
export function negotiateVersion(requested: string | undefined, supported: readonly string[]): string {
  const version = supportedVersion(requested, supported);
  if (version !== undefined) return version;
  const value = requested?.trim() ?? '';
  const asked = value === '' ? 'no A2A-Version (which means 0.3)' : `A2A-Version ${JSON.stringify(value.slice(0, 20))}`;
  throw new VersionNotSupportedError(`This agent speaks A2A ${supported.join(', ')}; the request gave ${asked}`, {
    supportedVersions: supported.join(','),
  });
}

/**
 * {@link negotiateVersion} without the error: the `Major.Minor` asked for when it is in `supported`,
 * else undefined. For a check whose "no" is an ordinary answer (which version a request is answered
 * in): an error costs its stack.
 */
export function supportedVersion(requested: string | undefined, supported: readonly string[]): string | undefined {
  // the usual request names a supported Major.Minor exactly: no parse (once per request)
  if (requested !== undefined && supported.includes(requested)) return requested;
  const value = requested?.trim() ?? '';
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(value);
  const version = value === '' ? IMPLICIT_VERSION : match ? `${Number(match[1])}.${Number(match[2])}` : undefined;
  return version !== undefined && supported.includes(version) ? version : undefined;
}

/** Extension URIs from one or more `A2A-Extensions` header values (comma-separated). */
export function parseExtensionsHeader(value: string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  const values = typeof value === 'string' ? [value] : value;
  const uris = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
  return [...new Set(uris)];
}

/**
 * The extensions to activate: those requested that the agent declares (others are ignored).
 * @throws ExtensionSupportRequiredError when a `required` extension was not requested.
 */
export function activateExtensions(requested: readonly string[], declared: readonly AgentExtension[]): string[] {
  if (declared.length === 0) return []; // most agents declare none: nothing to require or to activate
  const missing = declared.filter((e) => e.required && !requested.includes(e.uri)).map((e) => e.uri);
  if (missing.length > 0) {
    throw new ExtensionSupportRequiredError(`This agent requires the extension(s) ${missing.join(', ')}; request them in ${EXTENSIONS_HEADER}`, {
      extensions: missing.join(','),
    });
  }
  const known = new Set(declared.map((e) => e.uri));
  return requested.filter((uri) => known.has(uri));
}
