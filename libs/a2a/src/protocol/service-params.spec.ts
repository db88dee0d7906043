/** Service parameters A2A-Version and A2A-Extensions (spec digest §4.1, §4.2). */
import { describe, expect, it } from '@jest/globals';
import { ExtensionSupportRequiredError, VersionNotSupportedError } from './errors.js';
import {
  EXTENSIONS_HEADER,
  IMPLICIT_VERSION,
  VERSION_HEADER,
  activateExtensions,
  negotiateVersion,
  parseExtensionsHeader,
  supportedVersion,
} from './service-params.js';
import type { AgentExtension } from './types.js';
import { thrown } from '../testing/thrown.js';


describe('header names', () => {
  it('A2A-Version, A2A-Extensions; absent version means 0.3', () => {
    expect(VERSION_HEADER).toBe('A2A-Version');
    expect(EXTENSIONS_HEADER).toBe('A2A-Extensions');
    expect(IMPLICIT_VERSION).toBe('0.3');
  });
});

describe('supportedVersion', () => {
  it.each<{ requested: string | undefined; supported: string[]; expected: string | undefined }>([
    { requested: '1.0', supported: ['0.3'], expected: undefined },
    { requested: '1.0.1', supported: ['0.3'], expected: undefined },
    { requested: 'latest', supported: ['0.3'], expected: undefined },
    { requested: '0.3', supported: ['0.3'], expected: '0.3' },
    { requested: ' 0.3.5 ', supported: ['0.3'], expected: '0.3' },
    { requested: undefined, supported: ['0.3'], expected: '0.3' },
    { requested: '', supported: ['0.3'], expected: '0.3' },
    { requested: undefined, supported: ['1.0'], expected: undefined },
    { requested: '01.00', supported: ['1.0'], expected: '1.0' },
  ])('$requested with $supported → $expected, where negotiateVersion answers the same or throws', ({ requested, supported, expected }) => {
    expect(supportedVersion(requested, supported)).toBe(expected);
    if (expected === undefined) expect(thrown(() => negotiateVersion(requested, supported))).toBeInstanceOf(VersionNotSupportedError);
    else expect(negotiateVersion(requested, supported)).toBe(expected);
  });
});

describe('negotiateVersion (digest §4.1)', () => {
  it.each<{ requested: string | undefined; supported: string[]; expected: string }>([
    { requested: '1.0', supported: ['1.0'], expected: '1.0' },
    { requested: '1.0.1', supported: ['1.0'], expected: '1.0' },
    { requested: '1.0.0', supported: ['1.0'], expected: '1.0' },
    { requested: ' 1.0 ', supported: ['1.0'], expected: '1.0' },
    { requested: '01.00', supported: ['1.0'], expected: '1.0' },
    { requested: '1.0', supported: ['0.3', '1.0'], expected: '1.0' },
    { requested: '0.3', supported: ['0.3', '1.0'], expected: '0.3' },
    { requested: undefined, supported: ['0.3', '1.0'], expected: '0.3' },
    { requested: '', supported: ['0.3', '1.0'], expected: '0.3' },
    { requested: '   ', supported: ['0.3', '1.0'], expected: '0.3' },
  ])('$requested with $supported → $expected', ({ requested, supported, expected }) => {
    expect(negotiateVersion(requested, supported)).toBe(expected);
  });

  it.each<{ name: string; requested: string | undefined; mentions: string }>([
    { name: 'absent (means 0.3)', requested: undefined, mentions: '0.3' },
    { name: 'empty (means 0.3)', requested: '', mentions: '0.3' },
    { name: '0.3', requested: '0.3', mentions: '0.3' },
    { name: '2.0', requested: '2.0', mentions: '2.0' },
    { name: '1.1', requested: '1.1', mentions: '1.1' },
    { name: 'major only', requested: '1', mentions: '"1"' },
    { name: 'v-prefixed', requested: 'v1.0', mentions: 'v1.0' },
    { name: 'four components', requested: '1.0.1.2', mentions: '1.0.1.2' },
    { name: 'garbage', requested: 'latest', mentions: 'latest' },
    { name: 'a list', requested: '1.0, 0.3', mentions: '1.0, 0.3' },
  ])('$name on a 1.0-only interface → VersionNotSupportedError', ({ requested, mentions }) => {
    const error = thrown(() => negotiateVersion(requested, ['1.0']));
    expect(error).toBeInstanceOf(VersionNotSupportedError);
    const versionError = error as VersionNotSupportedError;
    expect(versionError.jsonRpcCode).toBe(-32009);
    expect(versionError.httpStatus).toBe(400);
    expect(versionError.grpcStatus).toBe('FAILED_PRECONDITION');
    expect(versionError.message).toContain(mentions);
    expect(versionError.message).toContain('1.0');
    expect(versionError.metadata).toEqual({ supportedVersions: '1.0' });
    expect(versionError.toJsonRpc().data).toEqual([
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'VERSION_NOT_SUPPORTED',
        domain: 'a2a-protocol.org',
        metadata: { supportedVersions: '1.0' },
      },
    ]);
  });

  it('lists every supported version in the metadata', () => {
    const error = thrown(() => negotiateVersion('2.0', ['0.3', '1.0'])) as VersionNotSupportedError;
    expect(error.metadata.supportedVersions).toBe('0.3,1.0');
  });

  it('quotes at most 20 characters of a hostile value', () => {
    const error = thrown(() => negotiateVersion('x'.repeat(5000), ['1.0'])) as VersionNotSupportedError;
    expect(error.message).not.toContain('x'.repeat(21));
  });
});

describe('parseExtensionsHeader (digest §4.2)', () => {
  it.each<{ value: string | string[] | undefined; expected: string[] }>([
    { value: undefined, expected: [] },
    { value: '', expected: [] },
    { value: ' , ,', expected: [] },
    { value: 'https://example.com/ext/geo/v1', expected: ['https://example.com/ext/geo/v1'] },
    { value: 'https://a/v1, https://b/v2', expected: ['https://a/v1', 'https://b/v2'] },
    { value: 'https://a/v1,https://b/v2,', expected: ['https://a/v1', 'https://b/v2'] },
    { value: ['https://a/v1, https://b/v2', 'https://c/v1'], expected: ['https://a/v1', 'https://b/v2', 'https://c/v1'] },
    { value: 'https://a/v1, https://a/v1', expected: ['https://a/v1'] },
    { value: ['https://a/v1', 'https://a/v1'], expected: ['https://a/v1'] },
  ])('$value → $expected', ({ value, expected }) => {
    expect(parseExtensionsHeader(value)).toEqual(expected);
  });
});

describe('activateExtensions (digest §4.2)', () => {
  const geo: AgentExtension = { uri: 'https://example.com/ext/geo/v1', required: true };
  const trace: AgentExtension = { uri: 'https://example.com/ext/trace/v1' };
  const audit: AgentExtension = { uri: 'https://example.com/ext/audit/v1', required: true };

  it.each<{ name: string; requested: string[]; declared: AgentExtension[]; expected: string[] }>([
    { name: 'nothing declared, nothing requested', requested: [], declared: [], expected: [] },
    { name: 'optional not requested', requested: [], declared: [trace], expected: [] },
    { name: 'optional requested', requested: [trace.uri], declared: [trace], expected: [trace.uri] },
    { name: 'required requested', requested: [geo.uri], declared: [geo, trace], expected: [geo.uri] },
    { name: 'unknown requested is ignored', requested: ['https://unknown/ext', trace.uri], declared: [trace], expected: [trace.uri] },
    { name: 'no fallback to another version', requested: ['https://example.com/ext/trace/v2'], declared: [trace], expected: [] },
    { name: 'order of the request kept', requested: [trace.uri, geo.uri], declared: [geo, trace], expected: [trace.uri, geo.uri] },
  ])('$name', ({ requested, declared, expected }) => {
    expect(activateExtensions(requested, declared)).toEqual(expected);
  });

  it.each<{ name: string; requested: string[]; missing: string[] }>([
    { name: 'none requested', requested: [], missing: [geo.uri, audit.uri] },
    { name: 'one of two requested', requested: [geo.uri], missing: [audit.uri] },
    { name: 'another version requested', requested: ['https://example.com/ext/geo/v2', audit.uri], missing: [geo.uri] },
  ])('required not requested ($name) → ExtensionSupportRequiredError', ({ requested, missing }) => {
    const error = thrown(() => activateExtensions(requested, [geo, trace, audit]));
    expect(error).toBeInstanceOf(ExtensionSupportRequiredError);
    const extensionError = error as ExtensionSupportRequiredError;
    expect(extensionError.jsonRpcCode).toBe(-32008);
    expect(extensionError.reason).toBe('EXTENSION_SUPPORT_REQUIRED');
    expect(extensionError.metadata).toEqual({ extensions: missing.join(',') });
    for (const uri of missing) expect(extensionError.message).toContain(uri);
    expect(extensionError.message).toContain('A2A-Extensions');
  });
});
