import { describe, expect, it } from '@jest/globals';
import { A2AConfigurationError } from '../../config/a2a-configuration.error.js';
import { resolveA2AOptions } from '../../config/a2a-options.js';
import { thrown } from '../../testing/thrown.js';
import { credentialEnvName, EnvCredentialResolver } from './credentials.js';
import { looksLikeSecret, resolvePeersOptions } from './peer-options.js';

const SECRET = 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c';

function problemsOf(input: Parameters<typeof resolvePeersOptions>[0]): string[] {
  const problems: string[] = [];
  resolvePeersOptions(input, problems);
  return problems;
}

describe('peer options', () => {
  it('fills in the defaults', () => {
    const problems: string[] = [];
    const resolved = resolvePeersOptions({ peers: [{ name: 'research', url: 'https://research.example.com', credential: 'research-token' }] }, problems);
    expect(problems).toEqual([]);
    expect(resolved.peers[0]).toEqual({
      name: 'research',
      url: 'https://research.example.com',
      credential: 'research-token',
      scheme: 'bearer',
      apiKeyHeader: 'X-API-Key',
      allow: ['*'],
      optional: false,
      extensions: [],
      timeoutMs: 60_000,
      egress: {},
      credentialOrigins: [],
    });
    expect(resolved.outbound).toMatchObject({ connectTimeoutMs: 10_000, maxClients: 1000, circuitBreaker: { failureThreshold: 5, halfOpenAfterMs: 30_000 } });
    expect(resolved.credentials.envPrefix).toBe('');
  });

  it('refuses literal secrets, naming the field and never the value', () => {
    const problems = problemsOf({
      peers: [
        { name: 'a', url: 'https://a.example.com', token: SECRET } as never,
        { name: 'b', url: 'https://b.example.com', headers: { authorization: `Bearer ${SECRET}` } } as never,
        { name: 'c', url: 'https://c.example.com', credential: SECRET },
        { name: 'd', url: 'https://d.example.com', credential: `Bearer ${SECRET}` },
        { name: 'e', url: `https://user:${SECRET}@e.example.com` },
        { name: 'f', url: `https://f.example.com/card.json?token=${SECRET}` },
        { name: 'g', url: 'https://g.example.com', apiKey: SECRET } as never,
      ],
      credentials: { password: SECRET } as never,
    });
    expect(problems).toEqual([
      expect.stringMatching(/^credentials\.password: literal secrets are not accepted/),
      expect.stringMatching(/^peers\[0\]\.token: literal secrets are not accepted/),
      expect.stringMatching(/^peers\[1\]\.headers: literal secrets are not accepted/),
      expect.stringMatching(/^peers\[2\]\.credential \(peer "c"\): must be the NAME of a credential/),
      expect.stringMatching(/^peers\[3\]\.credential \(peer "d"\): must be the NAME of a credential/),
      expect.stringMatching(/^peers\[4\]\.url \(peer "e"\): must not carry userinfo/),
      expect.stringMatching(/^peers\[5\]\.url \(peer "f"\): must not carry a query/),
      expect.stringMatching(/^peers\[6\]\.apiKey: literal secrets are not accepted/),
    ]);
    expect(problems).toHaveLength(8);
    expect(problems.join('\n')).not.toContain(SECRET.slice(8, 20));
  });

  it('lists every other problem at once', () => {
    const problems = problemsOf({
      peers: [
        { name: 'bad__name', url: 'http://research.example.com' },
        { name: 'ok', url: 'https://127.0.0.1:8443' },
        { name: 'ok', url: 'not a url' },
        { name: 'x', url: 'https://x.example.com', scheme: 'apiKey' },
        { name: 'y', url: 'https://y.example.com', apiKeyHeader: 'A2A-Version', credential: 'y-key', scheme: 'apiKey', timeoutMs: 0, allow: [''], preferredBinding: 'GRPC' as never },
        'nope' as never,
      ],
      outbound: { timeoutMs: -1, cardCache: { maxTtlMs: -1 } },
      credentials: { envPrefix: 'bad prefix' },
    });
    expect(problems).toEqual([
      'outbound.timeoutMs: must be an integer of at least 1',
      'outbound.cardCache.maxTtlMs: must be an integer of at least 0',
      'credentials.envPrefix: must be letters, digits and _ (the start of an environment variable name)',
      expect.stringMatching(/^peers\[0\]\.name: must be 1-32 letters/),
      'peers[0].url: must use https (http only when the egress policy allows it: egress.allowHttp, for development)',
      expect.stringMatching(/^peers\[1\]\.url \(peer "ok"\): is refused by the egress policy \(loopback;/),
      'peers[2].name: another peer is already named "ok"',
      'peers[2].url (peer "ok"): is not a valid absolute URL',
      'peers[3].credential (peer "x"): the apiKey scheme needs a credential name',
      'peers[4].apiKeyHeader (peer "y"): must be an HTTP header name (not one the protocol uses)',
      'peers[4].allow (peer "y"): must be a list of non-empty strings',
      'peers[4].timeoutMs (peer "y"): must be an integer of at least 1',
      'peers[4].preferredBinding (peer "y"): must be one of JSONRPC, HTTP+JSON',
      'peers[5]: must be an object { name, url, ... }',
    ]);
  });

  it('an unusable egress policy is reported once, where it is given', () => {
    expect(problemsOf({ peers: [{ name: 'p', url: 'https://p.example.com' }], outbound: { egress: { allowHosts: ['bad host/x'] } } })).toEqual([
      expect.stringMatching(/^outbound\.egress: allowHosts: "bad host\/x"/),
    ]);
    expect(problemsOf({ peers: [{ name: 'p', url: 'https://p.example.com', egress: { dnsTimeoutMs: 0 } }] })).toEqual([
      expect.stringMatching(/^peers\[0\]\.egress \(peer "p"\): dnsTimeoutMs/),
    ]);
  });

  it('a peer on this machine over http is allowed only by its egress policy', () => {
    const local = { name: 'local', url: 'http://127.0.0.1:3000', egress: { allowHttp: true, allowHosts: ['127.0.0.1'] } };
    expect(problemsOf({ peers: [local] })).toEqual([]);
    expect(problemsOf({ peers: [local], outbound: { egress: { allowHttp: true } } })).toEqual([]);
    expect(problemsOf({ peers: [{ name: 'local', url: 'http://127.0.0.1:3000' }], outbound: { egress: { allowHttp: true, allowPrivate: true } } })).toEqual([]);
  });

  it('the module refuses them at start-up in one A2AConfigurationError, without the value', () => {
    const error = thrown(() => resolveA2AOptions({ peers: [{ name: 'p', url: 'https://p.example.com', credential: SECRET }], publicUrl: 'nope' }));
    expect(error).toBeInstanceOf(A2AConfigurationError);
    expect((error as A2AConfigurationError).problems).toEqual([expect.stringMatching(/^publicUrl/), expect.stringMatching(/^peers\[0\]\.credential/)]);
    expect((error as Error).message).not.toContain(SECRET);
  });

  it('tells names from secrets', () => {
    for (const name of ['research-token', 'crm.api-key', 'PEER_KEY_2', 'github-app-installation-token']) expect(looksLikeSecret(name)).toBe(false);
    for (const secret of [SECRET, 'ghp_16C7e42F292c6912E7710c838347Ae178B4a', 'eyJhbGciOiJIUzI1NiJ9', 'Bearer abc', '0123456789abcdef0123456789abcdef']) {
      expect(looksLikeSecret(secret)).toBe(true);
    }
  });
});

describe('credentials by name', () => {
  it('maps a name to its environment variable', () => {
    expect(credentialEnvName('research-token')).toBe('RESEARCH_TOKEN');
    expect(credentialEnvName('crm.api-key', 'A2A_')).toBe('A2A_CRM_API_KEY');
  });

  it('reads the environment at every call', () => {
    const env: NodeJS.ProcessEnv = {};
    const resolver = new EnvCredentialResolver('', env);
    expect(resolver.resolve('research-token')).toBeUndefined();
    env.RESEARCH_TOKEN = 'one';
    expect(resolver.resolve('research-token')).toBe('one');
    env.RESEARCH_TOKEN = '';
    expect(resolver.resolve('research-token')).toBeUndefined();
    expect(resolver.describe('research-token')).toBe('environment variable RESEARCH_TOKEN');
  });
});
