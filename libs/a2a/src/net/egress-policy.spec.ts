import { isIP } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { EgressRefusedError, type EgressRefusalReason, InvalidEgressPolicyError } from './egress-errors.js';
import { EgressPolicy, type EgressPolicyOptions } from './egress-policy.js';
import { fakeLookup, NEVER } from './testing/fake-lookup.js';
import { rejectionOf } from '../testing/thrown.js';

/**
 * Simulated DNS: no test resolves a real name, and nothing here opens a socket. The public addresses
 * below are only ever classified, never dialled.
 */
const DNS = {
  'example.com': ['93.184.215.14'],
  'v6.example.com': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'dual.example.com': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', '93.184.215.14'],
  'metadata.google.internal': ['169.254.169.254'],
  'imds.attacker.example': ['169.254.169.254'],
  'imds6.attacker.example': ['fd00:ec2::254'],
  'alibaba.attacker.example': ['100.100.100.200'],
  'mixed.attacker.example': ['93.184.215.14', '10.0.0.7'],
  'mixed6.attacker.example': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', '::1'],
  '127.0.0.1.nip.io': ['127.0.0.1'],
  'ula.attacker.example': ['fd00::5'],
  'mapped.attacker.example': ['::ffff:10.1.1.1'],
  'nat64.attacker.example': ['64:ff9b::a9fe:a9fe'],
  'zero.attacker.example': ['0.0.0.0'],
  'empty.attacker.example': [],
  'slow.attacker.example': NEVER,
  'garbage.attacker.example': ['not-an-ip'],
  'hooks.internal': ['10.0.0.5'],
  'evil-hooks.internal': ['169.254.169.254'],
  'a.b.corp.example': ['192.168.3.4'],
  'svc.internal': ['10.1.9.9'],
  localhost: ['127.0.0.1', '::1'],
} as const;

/** checkUrl, then resolveAndCheck on what it returned: the two steps a URL goes through. */
async function admit(policy: EgressPolicy, url: string, lookup = fakeLookup(DNS)) {
  const parsed = policy.checkUrl(url);
  return policy.resolveAndCheck(parsed.hostname, lookup);
}

interface Hostile {
  url: string;
  reason: EgressRefusalReason;
  /** Strings the refusal message must not contain (secrets). */
  hidden?: string[];
}

const HOSTILE: Hostile[] = [
  // loopback, in every spelling the URL parser turns into 127.0.0.1
  { url: 'https://127.0.0.1/', reason: 'loopback' },
  { url: 'https://127.1/', reason: 'loopback' },
  { url: 'https://2130706433/', reason: 'loopback' },
  { url: 'https://0177.0.0.1/', reason: 'loopback' },
  { url: 'https://0x7f.1/', reason: 'loopback' },
  { url: 'https://0x7f000001/', reason: 'loopback' },
  { url: 'https://127.0.0.1./', reason: 'loopback' },
  { url: 'https://127.255.255.254:8443/admin', reason: 'loopback' },
  { url: 'https://localhost/', reason: 'loopback' },
  { url: 'https://LOCALHOST./', reason: 'loopback' },
  { url: 'https://ｌｏｃａｌｈｏｓｔ/', reason: 'loopback' },
  { url: 'https://api.localhost/', reason: 'loopback' },
  { url: 'https://127.0.0.1.nip.io/', reason: 'loopback' },
  { url: 'https://[::1]/', reason: 'loopback' },
  { url: 'https://[::ffff:127.0.0.1]/', reason: 'loopback' },
  { url: 'https://[::ffff:7f00:1]/', reason: 'loopback' },
  { url: 'https://[0:0:0:0:0:ffff:127.0.0.1]/', reason: 'loopback' },
  { url: 'https://[::127.0.0.1]/', reason: 'loopback' },
  { url: 'https://[::ffff:0:127.0.0.1]/', reason: 'loopback' },
  { url: 'https://[64:ff9b::127.0.0.1]/', reason: 'loopback' },
  { url: 'https://[2002:7f00:1::1]/', reason: 'loopback' },
  // unspecified (Linux dials 0.0.0.0 as this machine)
  { url: 'https://0.0.0.0/', reason: 'unspecified' },
  { url: 'https://0/', reason: 'unspecified' },
  { url: 'https://[::]/', reason: 'unspecified' },
  { url: 'https://zero.attacker.example/', reason: 'unspecified' },
  // cloud metadata, by address in any spelling, embedded, and by name
  { url: 'https://169.254.169.254/latest/meta-data/', reason: 'metadata' },
  { url: 'https://2852039166/', reason: 'metadata' },
  { url: 'https://0xA9FEA9FE/', reason: 'metadata' },
  { url: 'https://0251.0376.0251.0376/', reason: 'metadata' },
  { url: 'https://169.254.43518/', reason: 'metadata' },
  { url: 'https://[::ffff:169.254.169.254]/', reason: 'metadata' },
  { url: 'https://[64:ff9b::169.254.169.254]/', reason: 'metadata' },
  { url: 'https://metadata.google.internal/computeMetadata/v1/', reason: 'metadata' },
  { url: 'https://METADATA.GOOGLE.INTERNAL./', reason: 'metadata' },
  { url: 'https://imds.attacker.example/', reason: 'metadata' },
  { url: 'https://imds6.attacker.example/', reason: 'metadata' },
  { url: 'https://nat64.attacker.example/', reason: 'metadata' },
  { url: 'https://[fd00:ec2::254]/latest/meta-data/', reason: 'metadata' },
  { url: 'https://100.100.100.200/latest/meta-data/', reason: 'metadata' },
  { url: 'https://alibaba.attacker.example/', reason: 'metadata' },
  { url: 'https://169.254.170.2/v2/credentials/x', reason: 'metadata' },
  { url: 'https://168.63.129.16/machine?comp=goalstate', reason: 'metadata' },
  { url: 'https://192.0.0.192/', reason: 'metadata' },
  // RFC 1918, CGNAT, link-local, ULA, site-local
  { url: 'https://10.0.0.1/', reason: 'private' },
  { url: 'https://10.255.255.255/', reason: 'private' },
  { url: 'https://012.0.0.1/', reason: 'private' },
  { url: 'https://172.16.0.1/', reason: 'private' },
  { url: 'https://172.31.255.254/', reason: 'private' },
  { url: 'https://192.168.1.1/', reason: 'private' },
  { url: 'https://3232235777/', reason: 'private' },
  { url: 'https://[::ffff:192.168.1.1]/', reason: 'private' },
  { url: 'https://[64:ff9b::10.0.0.1]/', reason: 'private' },
  { url: 'https://[2002:c0a8:101::1]/', reason: 'private' },
  { url: 'https://[2002:a00:1::]/', reason: 'private' },
  { url: 'https://mapped.attacker.example/', reason: 'private' },
  { url: 'https://[fec0::1]/', reason: 'private' },
  { url: 'https://100.64.0.1/', reason: 'carrier-grade-nat' },
  { url: 'https://100.127.255.254/', reason: 'carrier-grade-nat' },
  { url: 'https://169.254.1.1/', reason: 'link-local' },
  { url: 'https://[fe80::1]/', reason: 'link-local' },
  { url: 'https://[fc00::1]/', reason: 'unique-local' },
  { url: 'https://[fd12:3456:789a::1]/', reason: 'unique-local' },
  { url: 'https://ula.attacker.example/', reason: 'unique-local' },
  // multicast, broadcast, reserved / special-purpose
  { url: 'https://224.0.0.1/', reason: 'multicast' },
  { url: 'https://239.255.255.250/', reason: 'multicast' },
  { url: 'https://[ff02::1]/', reason: 'multicast' },
  { url: 'https://255.255.255.255/', reason: 'broadcast' },
  { url: 'https://192.0.2.1/', reason: 'reserved' },
  { url: 'https://198.18.0.1/', reason: 'reserved' },
  { url: 'https://240.0.0.1/', reason: 'reserved' },
  { url: 'https://[2001:db8::1]/', reason: 'reserved' },
  { url: 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', reason: 'reserved' }, // Teredo
  { url: 'https://[100::1]/', reason: 'reserved' }, // discard-only
  { url: 'https://[4000::1]/', reason: 'reserved' }, // outside 2000::/3
  { url: 'https://[::8.8.8.8]/', reason: 'reserved' }, // deprecated IPv4-compatible
  { url: 'https://[64:ff9b:1::a00:1]/', reason: 'reserved' }, // local-use NAT64
  // every answer must pass: one private address among public ones refuses the name
  { url: 'https://mixed.attacker.example/', reason: 'private' },
  { url: 'https://mixed6.attacker.example/', reason: 'loopback' },
  // DNS failures
  { url: 'https://nxdomain.attacker.example/', reason: 'dns' },
  { url: 'https://empty.attacker.example/', reason: 'dns' },
  { url: 'https://garbage.attacker.example/', reason: 'dns' },
  // URL syntax
  { url: 'https://user:pass@example.com/', reason: 'userinfo', hidden: ['pass', 'user:', 'user@'] },
  { url: 'https://user@example.com/', reason: 'userinfo', hidden: ['user@'] },
  { url: 'https://:s3cr3t@example.com/', reason: 'userinfo', hidden: ['s3cr3t'] },
  { url: 'https://user:hunter2@10.0.0.1/?sig=abc123#frag', reason: 'userinfo', hidden: ['hunter2', 'abc123', 'frag'] },
  { url: 'http://example.com/hook?token=SUPERSECRET', reason: 'scheme', hidden: ['SUPERSECRET'] },
  { url: 'http://127.0.0.1/', reason: 'scheme' },
  { url: 'ftp://example.com/file', reason: 'scheme' },
  { url: 'file:///etc/passwd', reason: 'scheme' },
  { url: 'gopher://127.0.0.1:6379/_FLUSHALL', reason: 'scheme' },
  { url: 'ws://example.com/', reason: 'scheme' },
  { url: 'javascript:alert(document.cookie)', reason: 'scheme', hidden: ['cookie'] },
  { url: 'data:text/plain,hello', reason: 'scheme' },
  { url: 'not a url', reason: 'invalid-url' },
  { url: '/relative/hook', reason: 'invalid-url' },
  { url: 'https://[fe80::1%25eth0]/', reason: 'invalid-url' },
  { url: 'https://1.2.3.4.5/', reason: 'invalid-url' },
  { url: 'https://example.com:0/', reason: 'port' },
];

describe('EgressPolicy: hostile URLs are refused with a reason', () => {
  const policy = new EgressPolicy({ dnsTimeoutMs: 200 });

  it.each(HOSTILE)('$url → $reason', async ({ url, reason, hidden }) => {
    const lookup = fakeLookup(DNS);
    const error = await rejectionOf(admit(policy, url, lookup), EgressRefusedError);
    expect(error.reason).toBe(reason);
    expect(error.name).toBe('EgressRefusedError');
    for (const secret of hidden ?? []) expect(error.message).not.toContain(secret);
    // IP literals and syntax errors are judged without any DNS question.
    let literal = true;
    try {
      literal = isIP(new URL(url).hostname.replace(/^\[|\]$/g, '')) !== 0;
    } catch {
      // unparseable: refused before any question too
    }
    if (literal) expect(lookup.calls).toEqual([]);
  });

  it('has at least 40 entries', () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(40);
  });

  it('refuses a name whose resolution hangs once dnsTimeoutMs elapses', async () => {
    const error = await rejectionOf(admit(policy, 'https://slow.attacker.example/'), EgressRefusedError);
    expect(error.reason).toBe('dns');
    expect(error.message).toContain('200 ms');
  });

  it('keeps query values, userinfo and fragment out of every message but names the host and path', async () => {
    const error = await rejectionOf(admit(policy, 'http://alice:wonderland@example.com:8080/hooks/a2a?token=t0ps3cret&x#anchor'), EgressRefusedError);
    expect(error.message).toContain('http://example.com:8080/hooks/a2a?token=REDACTED&REDACTED');
    for (const secret of ['alice', 'wonderland', 't0ps3cret', 'anchor']) expect(error.message).not.toContain(secret);
  });

  it('never echoes an unparseable URL', () => {
    const error = (() => {
      try {
        policy.checkUrl('https://tok:en@[bad');
      } catch (err) {
        return err as EgressRefusedError;
      }
      throw new Error('not refused');
    })();
    expect(error.reason).toBe('invalid-url');
    expect(error.message).not.toContain('tok');
    expect(error.cause).toBeUndefined();
  });

  it('carries the refused address', async () => {
    const error = await rejectionOf(admit(policy, 'https://0x7f.1/'), EgressRefusedError);
    expect(error.address).toBe('127.0.0.1');
    const dnsError = await rejectionOf(admit(policy, 'https://mixed.attacker.example/'), EgressRefusedError);
    expect(dnsError.address).toBe('10.0.0.7');
    expect(dnsError.message).toContain('mixed.attacker.example resolves to 10.0.0.7');
  });
});

interface Allowed {
  url: string;
  options?: EgressPolicyOptions;
  addresses: string[];
}

const ALLOWED: Allowed[] = [
  { url: 'https://example.com/hook', addresses: ['93.184.215.14'] },
  { url: 'https://EXAMPLE.com./hook', addresses: ['93.184.215.14'] },
  { url: 'https://example.com:8443/hook?x=1', addresses: ['93.184.215.14'] },
  { url: 'https://v6.example.com/', addresses: ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'] },
  { url: 'https://dual.example.com/', addresses: ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', '93.184.215.14'] },
  { url: 'https://8.8.8.8/', addresses: ['8.8.8.8'] },
  { url: 'https://134744072/', addresses: ['8.8.8.8'] },
  { url: 'https://[2606:4700:4700::1111]/', addresses: ['2606:4700:4700::1111'] },
  { url: 'https://[::ffff:8.8.8.8]/', addresses: ['::ffff:808:808'] },
  { url: 'https://[64:ff9b::8.8.8.8]/', addresses: ['64:ff9b::808:808'] }, // NAT64 of a public address
  { url: 'https://[2002:808:808::1]/', addresses: ['2002:808:808::1'] }, // 6to4 of a public address
  { url: 'http://example.com/', options: { allowHttp: true }, addresses: ['93.184.215.14'] },
  // allow-list: names, wildcard subdomains, addresses and ranges bypass the address checks
  { url: 'https://hooks.internal/a2a', options: { allowHosts: ['hooks.internal'] }, addresses: ['10.0.0.5'] },
  { url: 'https://HOOKS.internal./a2a', options: { allowHosts: ['Hooks.Internal'] }, addresses: ['10.0.0.5'] },
  { url: 'https://a.b.corp.example/', options: { allowHosts: ['*.corp.example'] }, addresses: ['192.168.3.4'] },
  { url: 'https://10.1.2.3/', options: { allowHosts: ['10.1.0.0/16'] }, addresses: ['10.1.2.3'] },
  { url: 'https://svc.internal/', options: { allowHosts: ['10.1.0.0/16'] }, addresses: ['10.1.9.9'] },
  { url: 'https://[::ffff:10.1.2.3]/', options: { allowHosts: ['10.1.0.0/16'] }, addresses: ['::ffff:a01:203'] },
  { url: 'https://[fd00:1::5]/', options: { allowHosts: ['fd00:1::/64'] }, addresses: ['fd00:1::5'] },
  { url: 'https://169.254.169.254/', options: { allowHosts: ['169.254.169.254'] }, addresses: ['169.254.169.254'] },
  { url: 'https://hooks.internal/', options: { allowHosts: ['hooks.internal'], allowListOnly: true }, addresses: ['10.0.0.5'] },
  { url: 'https://example.com/', options: { allowHosts: ['93.184.215.0/24'], allowListOnly: true }, addresses: ['93.184.215.14'] },
  // development: loopback and private ranges
  { url: 'https://localhost/', options: { allowPrivate: true }, addresses: ['127.0.0.1', '::1'] },
  { url: 'https://127.0.0.1:3000/', options: { allowPrivate: true }, addresses: ['127.0.0.1'] },
  { url: 'https://[::1]/', options: { allowPrivate: true }, addresses: ['::1'] },
  { url: 'https://192.168.1.10/', options: { allowPrivate: true }, addresses: ['192.168.1.10'] },
  { url: 'https://100.64.0.1/', options: { allowPrivate: true }, addresses: ['100.64.0.1'] },
  { url: 'https://[fd12::1]/', options: { allowPrivate: true }, addresses: ['fd12::1'] },
  { url: 'http://localhost:8080/', options: { allowPrivate: true, allowHttp: true }, addresses: ['127.0.0.1', '::1'] },
  { url: 'https://example.com/', options: { allowPorts: [443] }, addresses: ['93.184.215.14'] },
];

describe('EgressPolicy: allowed URLs', () => {
  it.each(ALLOWED)('$url with $options → $addresses', async ({ url, options, addresses }) => {
    const policy = new EgressPolicy(options);
    const resolved = await admit(policy, url);
    expect(resolved.map((r) => r.address)).toEqual(addresses);
    expect(resolved.map((r) => r.family)).toEqual(addresses.map((a) => (a.includes(':') ? 6 : 4)));
  });
});

interface Relaxed {
  title: string;
  url: string;
  options: EgressPolicyOptions;
  reason: EgressRefusalReason;
}

const STILL_REFUSED: Relaxed[] = [
  { title: 'metadata by address under allowPrivate', url: 'https://169.254.169.254/', options: { allowPrivate: true }, reason: 'metadata' },
  { title: 'metadata by name under allowPrivate', url: 'https://metadata.google.internal/', options: { allowPrivate: true }, reason: 'metadata' },
  { title: 'IPv6 metadata under allowPrivate', url: 'https://[fd00:ec2::254]/', options: { allowPrivate: true }, reason: 'metadata' },
  {
    title: 'an allow-listed name that resolves to a metadata address',
    url: 'https://evil-hooks.internal/',
    options: { allowHosts: ['evil-hooks.internal'] },
    reason: 'metadata',
  },
  {
    title: 'metadata inside a broad allow-listed range',
    url: 'https://169.254.169.254/',
    options: { allowHosts: ['169.254.0.0/16'] },
    reason: 'metadata',
  },
  { title: 'an extra metadata address', url: 'https://example.com/', options: { metadataAddresses: ['93.184.215.14'] }, reason: 'metadata' },
  { title: 'an extra metadata name', url: 'https://md.corp.example/', options: { metadataHostnames: ['md.corp.example'] }, reason: 'metadata' },
  { title: 'unspecified under allowPrivate', url: 'https://0.0.0.0/', options: { allowPrivate: true }, reason: 'unspecified' },
  { title: 'multicast under allowPrivate', url: 'https://224.0.0.1/', options: { allowPrivate: true }, reason: 'multicast' },
  { title: 'reserved under allowPrivate', url: 'https://240.0.0.1/', options: { allowPrivate: true }, reason: 'reserved' },
  { title: 'userinfo under allowPrivate', url: 'https://u:p@localhost/', options: { allowPrivate: true }, reason: 'userinfo' },
  {
    title: 'one allow-listed address among unlisted private ones',
    url: 'https://mixed.attacker.example/',
    options: { allowHosts: ['93.184.215.14'] },
    reason: 'private',
  },
  {
    title: 'an unlisted name under allowListOnly (names only)',
    url: 'https://example.com/',
    options: { allowHosts: ['hooks.internal'], allowListOnly: true },
    reason: 'not-allow-listed',
  },
  {
    title: 'an address outside the ranges under allowListOnly',
    url: 'https://example.com/',
    options: { allowHosts: ['10.0.0.0/8'], allowListOnly: true },
    reason: 'not-allow-listed',
  },
  {
    title: 'wildcard does not cover the apex',
    url: 'https://corp.example/',
    options: { allowHosts: ['*.corp.example'], allowListOnly: true },
    reason: 'not-allow-listed',
  },
  { title: 'a denied port', url: 'https://example.com:25/', options: { denyPorts: [25] }, reason: 'port' },
  { title: 'a port outside allowPorts', url: 'https://example.com:8443/', options: { allowPorts: [443] }, reason: 'port' },
  { title: 'the implicit https port outside allowPorts', url: 'https://example.com/', options: { allowPorts: [8443] }, reason: 'port' },
  { title: 'ftp even with allowHttp', url: 'ftp://example.com/', options: { allowHttp: true }, reason: 'scheme' },
];

describe('EgressPolicy: what relaxed options still refuse', () => {
  it.each(STILL_REFUSED)('$title', async ({ url, options, reason }) => {
    const error = await rejectionOf(admit(new EgressPolicy(options), url), EgressRefusedError);
    expect(error.reason).toBe(reason);
  });
});

describe('EgressPolicy.checkAddress', () => {
  const policy = new EgressPolicy();

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.1', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['fe80::1%eth0', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['10.0.0.1', 'private'],
    ['fd00::1', 'unique-local'],
    ['::8.8.8.8', 'reserved'],
    ['example.com', 'invalid-address'],
    ['1.2.3.4:80', 'invalid-address'],
    ['', 'invalid-address'],
  ] as const)('%s → %s', (ip, reason) => {
    expect(() => policy.checkAddress(ip)).toThrow(EgressRefusedError);
    try {
      policy.checkAddress(ip);
    } catch (err) {
      expect((err as EgressRefusedError).reason).toBe(reason);
    }
  });

  it.each(['8.8.8.8', '93.184.215.14', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'])(
    '%s is allowed',
    (ip) => {
      expect(() => policy.checkAddress(ip)).not.toThrow();
    },
  );

  it('lets private kinds through with allowPrivate, never metadata', () => {
    const dev = new EgressPolicy({ allowPrivate: true });
    for (const ip of ['127.0.0.1', '::1', '10.0.0.1', '172.20.1.1', '192.168.0.1', '169.254.1.1', 'fe80::1', 'fd00::1', '100.64.0.1']) {
      expect(() => dev.checkAddress(ip)).not.toThrow();
    }
    expect(() => dev.checkAddress('169.254.169.254')).toThrow(EgressRefusedError);
  });
});

describe('EgressPolicy.resolveAndCheck', () => {
  const policy = new EgressPolicy();

  it('checks an IP literal without asking DNS, brackets or not', async () => {
    const lookup = fakeLookup({});
    await expect(policy.resolveAndCheck('[2606:4700:4700::1111]', lookup)).resolves.toEqual([
      { address: '2606:4700:4700::1111', family: 6 },
    ]);
    await expect(policy.resolveAndCheck('8.8.8.8', lookup)).resolves.toEqual([{ address: '8.8.8.8', family: 4 }]);
    expect(lookup.calls).toEqual([]);
  });

  it('refuses what is not a bare host name', async () => {
    for (const host of ['example.com:443', 'example.com/path', 'user@example.com', 'loc%61lhost', '']) {
      const error = await rejectionOf(policy.resolveAndCheck(host, fakeLookup(DNS)), EgressRefusedError);
      expect(error.reason).toBe('host');
    }
  });

  it('deduplicates answers and keeps the resolver order', async () => {
    const lookup = fakeLookup({ 'twice.example': ['93.184.215.14', '2606:4700:4700::1111', '93.184.215.14'] });
    await expect(policy.resolveAndCheck('twice.example', lookup)).resolves.toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:4700:4700::1111', family: 6 },
    ]);
  });

  it('reports the resolver error code, not its message', async () => {
    const error = await rejectionOf(policy.resolveAndCheck('nxdomain.example', fakeLookup({})), EgressRefusedError);
    expect(error.reason).toBe('dns');
    expect(error.message).toBe('egress refused: nxdomain.example does not resolve (ENOTFOUND)');
  });

  it('uses the resolver given to the policy by default', async () => {
    const lookup = fakeLookup({ 'own.example': ['8.8.4.4'] });
    const own = new EgressPolicy({ lookup });
    await expect(own.resolveAndCheck('own.example')).resolves.toEqual([{ address: '8.8.4.4', family: 4 }]);
    expect(lookup.calls).toEqual(['own.example']);
  });
});

describe('EgressPolicy options', () => {
  it('lists every unusable option at once', () => {
    let error: unknown;
    try {
      new EgressPolicy({
        allowHosts: ['10.0.0.0/33', 'https://x.example/', 'ok.example', '*.'],
        allowPorts: [0, 443],
        denyPorts: [70_000],
        metadataAddresses: ['nope'],
        dnsTimeoutMs: -1,
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InvalidEgressPolicyError);
    const problems = (error as InvalidEgressPolicyError).problems;
    expect(problems).toHaveLength(7);
    expect(problems.join('\n')).toContain('10.0.0.0/33');
    expect(problems.join('\n')).toContain('https://x.example/');
  });

  it('refuses allowListOnly with an empty allow-list', () => {
    expect(() => new EgressPolicy({ allowListOnly: true })).toThrow(InvalidEgressPolicyError);
  });

  it('checkTransport checks scheme and port of an origin', () => {
    const policy = new EgressPolicy({ denyPorts: [6379] });
    expect(() => policy.checkTransport('https:', 443)).not.toThrow();
    expect(() => policy.checkTransport('http:', 80)).toThrow(expect.objectContaining({ reason: 'scheme' }));
    expect(() => policy.checkTransport('https:', 6379)).toThrow(expect.objectContaining({ reason: 'port' }));
  });
});

describe('EgressPolicy trustedOrigins: the origin a user typed, and nothing else', () => {
  const policy = new EgressPolicy({ trustedOrigins: ['http://127.0.0.1:3000', 'http://[::1]:8080/ignored/path', 'https://localhost'] });
  /** The two steps as the client and its dispatcher take them: checkUrl, then the connect-time checks of that origin. */
  const admitAsDialled = async (url: string) => {
    const parsed = policy.checkUrl(url);
    const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
    const trusted = policy.trusts(parsed.protocol, parsed.hostname, port);
    policy.checkTransport(parsed.protocol, port, trusted);
    return policy.resolveAndCheck(parsed.hostname, fakeLookup(DNS), trusted);
  };

  it.each(['http://127.0.0.1:3000/.well-known/agent-card.json', 'http://127.0.0.1:3000/a2a/jsonrpc', 'http://[::1]:8080/x', 'https://localhost:443/a2a'])('admits %s', async (url) => {
    await expect(admitAsDialled(url)).resolves.toEqual(expect.arrayContaining([expect.objectContaining({ address: expect.any(String) })]));
  });

  it.each([
    ['http://127.0.0.1:3001/', 'scheme'],
    ['https://127.0.0.1:3000/', 'loopback'],
    ['http://localhost:3000/', 'scheme'],
    ['https://127.0.0.2/', 'loopback'],
    ['https://10.0.0.7/', 'private'],
  ] as const)('checks every other origin as usual: %s', async (url, reason) => {
    expect(await rejectionOf(admitAsDialled(url), EgressRefusedError)).toMatchObject({ reason });
  });

  it('still refuses userinfo on a trusted origin', () => {
    expect(() => policy.checkUrl('http://user:pw@127.0.0.1:3000/')).toThrow(expect.objectContaining({ reason: 'userinfo' }));
  });

  it('at connect time: trusts() matches the origin the dispatcher dials, and its checks let it through', async () => {
    expect(policy.trusts('http:', '127.0.0.1', 3000)).toBe(true);
    expect(policy.trusts('http:', '::1', 8080)).toBe(true);
    expect(policy.trusts('https:', 'localhost', 443)).toBe(true);
    expect(policy.trusts('http:', '127.0.0.1', 3001)).toBe(false);
    expect(() => policy.checkTransport('http:', 3000, true)).not.toThrow();
    expect(() => policy.checkTransport('http:', 3000)).toThrow(expect.objectContaining({ reason: 'scheme' }));
    await expect(policy.resolveAndCheck('127.0.0.1', fakeLookup(DNS), true)).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('refuses an origin that is not http(s)', () => {
    expect(() => new EgressPolicy({ trustedOrigins: ['ftp://x.example', 'not a url'] })).toThrow(InvalidEgressPolicyError);
  });
});
