import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { EgressRefusalReason } from './egress-errors.js';

/** A parsed IPv4 or IPv6 address. */
export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/** What the policy thinks of an address: `undefined` for a public unicast address. */
export interface AddressRefusal {
  reason: EgressRefusalReason;
  /** Human-readable, e.g. `::ffff:7f00:1 embeds 127.0.0.1 (IPv4-mapped), a loopback address`. */
  detail: string;
}

/**
 * Cloud instance-metadata (and similar host-service) endpoints. Most sit inside ranges refused anyway;
 * they are listed so that `allowPrivate` (which lets link-local, CGNAT and ULA through for development)
 * still never reaches them, and so that the refusal says what was at stake.
 */
export const DEFAULT_METADATA_ADDRESSES: readonly string[] = [
  '169.254.169.254', // AWS, GCP, Azure, OCI, DigitalOcean, Hetzner, OpenStack IMDS
  '169.254.169.253', // AWS VPC DNS resolver
  '169.254.169.123', // AWS Time Sync
  '169.254.170.2', // AWS ECS task metadata / credentials
  '169.254.170.23', // AWS EKS Pod Identity agent
  '169.254.0.23', // Tencent Cloud metadata
  '100.100.100.200', // Alibaba Cloud metadata
  '192.0.0.192', // Oracle Cloud (classic) metadata
  '168.63.129.16', // Azure WireServer / host agent: a *public* address, only special inside Azure
  'fd00:ec2::254', // AWS IMDS over IPv6
  'fd00:ec2::253', // AWS VPC DNS resolver over IPv6
  'fd00:ec2::23', // AWS EKS Pod Identity agent over IPv6
  'fd20:ce::254', // GCP metadata over IPv6
];

/** Names that reach a metadata service without DNS trickery, refused before any lookup. */
export const DEFAULT_METADATA_HOSTNAMES: readonly string[] = [
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
  'metadata.azure.internal',
];

const DESCRIPTIONS: Record<EgressRefusalReason, string> = {
  'invalid-url': 'not a valid absolute URL',
  scheme: 'a scheme that is not allowed',
  userinfo: 'credentials in the URL',
  host: 'an invalid host',
  port: 'a port that is not allowed',
  'not-allow-listed': 'a host that is not on the allow-list',
  'invalid-address': 'not an IP address',
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  'unique-local': 'an IPv6 unique-local address',
  'carrier-grade-nat': 'a carrier-grade NAT (shared) address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  unspecified: 'an unspecified address',
  reserved: 'a reserved or special-purpose address',
  metadata: 'a cloud metadata endpoint',
  dns: 'a name that does not resolve',
};

/** Short human description of a refusal reason, for messages. */
export function describeReason(reason: EgressRefusalReason): string {
  return DESCRIPTIONS[reason];
}

/** ipaddr.js range names → refusal reasons. `unicast` and the embedding ranges are handled apart. */
const RANGE_REASONS: Record<string, EgressRefusalReason> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade-nat',
  private: 'private',
  uniqueLocal: 'unique-local',
  deprecatedSiteLocal: 'private',
  reserved: 'reserved',
  as112: 'reserved',
  as112v6: 'reserved',
  amt: 'reserved',
  benchmarking: 'reserved',
  discard: 'reserved',
  teredo: 'reserved',
  deprecatedOrchid: 'reserved',
  orchid2: 'reserved',
  droneRemoteIdProtocolEntityTags: 'reserved',
  segmentRouting: 'reserved',
};

const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
/** IANA global unicast: whatever ipaddr.js calls `unicast` outside it is unassigned, so not dialled. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

const ODD_IPV4_SPELLING = /^[0-9a-fx.]+$/i;

/**
 * Parses an IP address and returns its canonical text, or `undefined` when `input` is not one.
 * Accepts brackets (`[::1]`), an IPv6 zone (`fe80::1%eth0`, classified without it) and every IPv4
 * spelling the WHATWG URL parser turns into an address (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`),
 * so the policy sees exactly what `new URL()` (and thus undici) would dial.
 */
export function parseIpAddress(input: string): { canonical: string; parsed: IpAddress } | undefined {
  let text = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  const zone = text.indexOf('%');
  if (zone !== -1 && text.includes(':')) text = text.slice(0, zone);
  const family = isIP(text);
  try {
    if (family === 6) {
      // Canonicalised by the URL parser: ipaddr.js reads `::1.2.3.4` as IPv4-mapped, which it is not.
      const canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
      return { canonical, parsed: ipaddr.IPv6.parse(canonical) };
    }
    if (family === 4) {
      const parsed = ipaddr.IPv4.parse(text);
      return { canonical: parsed.toString(), parsed };
    }
    if (ODD_IPV4_SPELLING.test(text)) {
      const host = new URL(`http://${text}/`).hostname;
      if (isIP(host) === 4) {
        const parsed = ipaddr.IPv4.parse(host);
        return { canonical: parsed.toString(), parsed };
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
}

function v4FromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** The IPv4 address an IPv6 address carries and that a packet to it would reach, if any. */
export function embeddedIpv4(address: ipaddr.IPv6): { v4: ipaddr.IPv4; how: string } | undefined {
  const p = address.parts;
  switch (address.range() as string) {
    case 'ipv4Mapped':
      return { v4: v4FromWords(p[6]!, p[7]!), how: 'IPv4-mapped' };
    case 'rfc6145':
      return { v4: v4FromWords(p[6]!, p[7]!), how: 'IPv4-translated' };
    case 'rfc6052':
      return address.match(NAT64_WELL_KNOWN) ? { v4: v4FromWords(p[6]!, p[7]!), how: 'NAT64' } : undefined;
    case '6to4':
      return { v4: v4FromWords(p[1]!, p[2]!), how: '6to4' };
    default:
      if (p.slice(0, 6).every((part) => part === 0)) return { v4: v4FromWords(p[6]!, p[7]!), how: 'IPv4-compatible' };
      return undefined;
  }
}

/**
 * Classifies an address, default-deny: only public unicast passes (IPv4 `unicast`, IPv6 inside
 * 2000::/3, and IPv6 forms embedding a public IPv4 through NAT64 / IPv4-mapping / 6to4). Metadata
 * endpoints are matched first, also when embedded.
 */
export function classifyAddress(address: IpAddress, metadata: ReadonlySet<string>): AddressRefusal | undefined {
  const text = address.toString();
  if (metadata.has(text)) return { reason: 'metadata', detail: `${text} is ${describeReason('metadata')}` };
  if (address.kind() === 'ipv4') {
    const range = address.range() as string;
    if (range === 'unicast') return undefined;
    const reason = RANGE_REASONS[range] ?? 'reserved';
    return { reason, detail: `${text} is ${describeReason(reason)}` };
  }
  const v6 = address as ipaddr.IPv6;
  const range = v6.range() as string;
  const directReason = RANGE_REASONS[range];
  // `::` and `::1` lie inside ::/96 but are what they are, not IPv4-compatible forms.
  if (directReason !== undefined) return { reason: directReason, detail: `${text} is ${describeReason(directReason)}` };
  const embedded = embeddedIpv4(v6);
  if (embedded !== undefined) {
    const inner = classifyAddress(embedded.v4, metadata);
    if (inner !== undefined) {
      return { reason: inner.reason, detail: `${text} embeds ${embedded.v4.toString()} (${embedded.how}): ${inner.detail}` };
    }
    // IPv4-compatible addresses are deprecated (RFC 4291) and routed by nobody; the others reach the v4 host.
    if (embedded.how === 'IPv4-compatible') {
      return { reason: 'reserved', detail: `${text} is a deprecated IPv4-compatible address` };
    }
    return undefined;
  }
  if (range === 'rfc6052') return { reason: 'reserved', detail: `${text} is in a local-use NAT64 prefix` };
  if (range === 'unicast' && v6.match(GLOBAL_UNICAST_V6)) return undefined;
  return { reason: 'reserved', detail: `${text} is ${describeReason('reserved')}` };
}
