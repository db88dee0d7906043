import ipaddr from 'ipaddr.js';
import {
  type AddressRefusal,
  classifyAddress,
  DEFAULT_METADATA_ADDRESSES,
  DEFAULT_METADATA_HOSTNAMES,
  describeReason,
  type IpAddress,
  parseIpAddress,
} from './address-classification.js';
import { EgressRefusedError, type EgressRefusalReason, InvalidEgressPolicyError } from './egress-errors.js';
import { DEFAULT_DNS_TIMEOUT_MS, lookupWithTimeout, systemLookup, type EgressLookup, type ResolvedAddress } from './egress-lookup.js';
import { normaliseName, parseHostRule, type HostRule } from './host-rules.js';
import { Check } from '../config/option-validation.js';
import { isPlainObject } from '../protocol/json-value.js';
import { redactUrl } from './redact-url.js';

/** @publicApi */
export interface EgressPolicyOptions {
  /** Allow `http:` as well as `https:`. Default false: webhooks and peers are reached over TLS only. */
  allowHttp?: boolean;
  /**
   * Development only: let loopback, private (RFC 1918, site-local), link-local, unique-local and CGNAT
   * addresses through. Metadata endpoints, multicast, broadcast, unspecified and reserved addresses
   * stay refused.
   */
  allowPrivate?: boolean;
  /**
   * Hosts that bypass the address checks: exact names (`hooks.internal`), wildcard subdomains
   * (`*.corp.example`, which does not match `corp.example` itself), IP addresses and CIDR ranges
   * (`10.1.0.0/16`, `fd00:1::/64`). A name on the list may resolve to anything except a metadata
   * endpoint; a metadata address passes only when listed as that exact address.
   */
  allowHosts?: readonly string[];
  /**
   * Origins someone vouched for (`http://127.0.0.1:3000`: the address a user typed on the command
   * line): a URL of exactly one of these origins (scheme, host and port) passes the scheme and address
   * checks; every other URL, a card's other interfaces included, is checked as usual.
   */
  trustedOrigins?: readonly string[];
  /** Refuse every host that `allowHosts` does not cover (reason `not-allow-listed`). Default false. */
  allowListOnly?: boolean;
  /** When given, only these ports (the scheme's default port counts as given explicitly). */
  allowPorts?: readonly number[];
  /** Ports always refused, e.g. `[25, 6379]`. Port 0 is always refused. */
  denyPorts?: readonly number[];
  /** Extra metadata addresses, added to `DEFAULT_METADATA_ADDRESSES`. */
  metadataAddresses?: readonly string[];
  /** Extra metadata host names, added to `DEFAULT_METADATA_HOSTNAMES`. */
  metadataHostnames?: readonly string[];
  /** Default resolver for {@link EgressPolicy.resolveAndCheck}. */
  lookup?: EgressLookup;
  /** A resolution slower than this is refused with reason `dns`. Default 5000 ms. */
  dnsTimeoutMs?: number;
}

/** Reasons that `allowPrivate` waives. */
const PRIVATE_REASONS: ReadonlySet<EgressRefusalReason> = new Set([
  'loopback',
  'private',
  'link-local',
  'unique-local',
  'carrier-grade-nat',
]);

/** `http://Host:80/path` → `http://host`; undefined for anything but an http(s) URL. */
function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

function isLocalhostName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost');
}

function isPort(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= 65_535;
}

/**
 * The egress (SSRF) policy: decides whether a URL given by a stranger (a webhook, a peer's card or
 * interface URL) may be dialled. Checks run twice: syntactically when the URL is registered
 * ({@link checkUrl}), and on every resolved address at connect time ({@link resolveAndCheck}, called by
 * the pinned dispatcher), so a name that changes its answer after registration (DNS rebinding) is
 * caught where it matters.
 * @publicApi
 */
export class EgressPolicy {
  readonly allowHttp: boolean;
  readonly allowPrivate: boolean;
  readonly allowListOnly: boolean;
  readonly dnsTimeoutMs: number;
  private readonly rules: readonly HostRule[];
  private readonly trustedOrigins: ReadonlySet<string>;
  private readonly allowPorts: ReadonlySet<number> | undefined;
  private readonly denyPorts: ReadonlySet<number>;
  private readonly metadataAddresses: ReadonlySet<string>;
  private readonly metadataHostnames: ReadonlySet<string>;
  private readonly lookup: EgressLookup;

  /** @throws InvalidEgressPolicyError listing every unusable option. */
  constructor(options: EgressPolicyOptions = {}) {
    const problems: string[] = [];
    this.allowHttp = options.allowHttp ?? false;
    this.allowPrivate = options.allowPrivate ?? false;
    this.allowListOnly = options.allowListOnly ?? false;
    this.dnsTimeoutMs = options.dnsTimeoutMs ?? DEFAULT_DNS_TIMEOUT_MS;
    if (!(Number.isFinite(this.dnsTimeoutMs) && this.dnsTimeoutMs > 0)) {
      problems.push(`dnsTimeoutMs must be a positive number of milliseconds (got ${String(options.dnsTimeoutMs)})`);
    }

    const rules: HostRule[] = [];
    for (const entry of options.allowHosts ?? []) {
      const rule = parseHostRule(entry);
      if (rule === undefined) problems.push(`allowHosts: "${entry}" is neither a host name, an IP address nor a CIDR range`);
      else rules.push(rule);
    }
    this.rules = rules;
    const trusted = new Set<string>();
    for (const entry of options.trustedOrigins ?? []) {
      const origin = originOf(entry);
      if (origin === undefined) problems.push(`trustedOrigins: "${entry}" is not an http or https origin`);
      else trusted.add(origin);
    }
    this.trustedOrigins = trusted;
    if (this.allowListOnly && rules.length === 0) problems.push('allowListOnly is set but allowHosts is empty: nothing could be reached');

    for (const [name, ports] of [['allowPorts', options.allowPorts], ['denyPorts', options.denyPorts]] as const) {
      for (const port of ports ?? []) if (!isPort(port)) problems.push(`${name}: ${String(port)} is not a TCP port (1-65535)`);
    }
    this.allowPorts = options.allowPorts === undefined ? undefined : new Set(options.allowPorts);
    this.denyPorts = new Set(options.denyPorts ?? []);

    const metadata = new Set<string>();
    for (const entry of [...DEFAULT_METADATA_ADDRESSES, ...(options.metadataAddresses ?? [])]) {
      const ip = parseIpAddress(entry);
      if (ip === undefined) problems.push(`metadataAddresses: "${entry}" is not an IP address`);
      else metadata.add(ip.parsed.toString());
    }
    this.metadataAddresses = metadata;
    this.metadataHostnames = new Set([...DEFAULT_METADATA_HOSTNAMES, ...(options.metadataHostnames ?? [])].map(normaliseName));
    this.lookup = options.lookup ?? systemLookup;

    if (problems.length > 0) throw new InvalidEgressPolicyError(problems);
  }

  /**
   * Syntax-level checks for a URL about to be stored or dialled: absolute, https (http only with
   * `allowHttp`), no userinfo, a host, an allowed port; a host written as an IP address (in any
   * spelling the URL parser accepts) is classified at once, a well-known local or metadata name is
   * refused. Names are otherwise only resolved at connect time.
   * @returns the parsed URL: dial this one, so the parser that judged it is the parser that dials it.
   * @throws EgressRefusedError
   */
  checkUrl(url: string | URL): URL {
    let parsed: URL;
    try {
      parsed = new URL(typeof url === 'string' ? url : url.href);
    } catch {
      // The parser's own error carries the input: never chained.
      throw new EgressRefusedError('invalid-url', 'egress refused: not a valid absolute URL');
    }
    const shown = redactUrl(parsed);
    const refuse = (reason: EgressRefusalReason, detail: string, address?: string): never => {
      throw new EgressRefusedError(reason, `egress refused for ${shown}: ${detail}`, address);
    };
    const trusted = this.trustedOrigins.has(parsed.origin);
    if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && (this.allowHttp || trusted))) {
      refuse('scheme', `scheme "${parsed.protocol}" is not allowed (${this.allowHttp ? 'https or http' : 'https'} only)`);
    }
    if (parsed.username !== '' || parsed.password !== '') {
      refuse('userinfo', 'the URL carries credentials (userinfo); send them in headers instead');
    }
    if (parsed.hostname === '') refuse('host', 'the URL has no host');
    const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
    const portProblem = this.portProblem(port);
    if (portProblem !== undefined) refuse('port', portProblem);

    const ip = parseIpAddress(parsed.hostname);
    if (trusted) return parsed;
    if (ip !== undefined) {
      const refusal = this.addressRefusal(ip.parsed, false);
      if (refusal !== undefined) refuse(refusal.reason, refusal.detail, ip.canonical);
    } else {
      const refusal = this.nameRefusal(parsed.hostname);
      if (refusal !== undefined) refuse(refusal.reason, refusal.detail);
    }
    return parsed;
  }

  /**
   * Throws unless `ip` may be dialled: refuses loopback, private, link-local, unique-local, CGNAT,
   * multicast, broadcast, unspecified, reserved and metadata addresses (including IPv6 forms embedding
   * such an IPv4 address), unless `allowPrivate` (for the private kinds) or `allowHosts` says otherwise.
   * @throws EgressRefusedError
   */
  checkAddress(ip: string): void {
    const parsed = parseIpAddress(ip);
    if (parsed === undefined) throw new EgressRefusedError('invalid-address', 'egress refused: not an IP address');
    const refusal = this.addressRefusal(parsed.parsed, false);
    if (refusal !== undefined) {
      throw new EgressRefusedError(refusal.reason, `egress refused: ${refusal.detail}`, parsed.canonical);
    }
  }

  /** Whether `protocol://hostname:port` is one of the `trustedOrigins`. */
  trusts(protocol: string, hostname: string, port: number): boolean {
    if (this.trustedOrigins.size === 0) return false;
    const host = hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname;
    const origin = originOf(`${protocol}//${host}:${port}`);
    return origin !== undefined && this.trustedOrigins.has(origin);
  }

  /**
   * Scheme and port checks for a connection about to be opened (the pinned dispatcher calls this with
   * the origin it is asked to dial, which never carries userinfo). `trusted`: a trusted origin's, any scheme.
   * @throws EgressRefusedError
   */
  checkTransport(protocol: string, port: number, trusted = false): void {
    if (protocol !== 'https:' && !(protocol === 'http:' && (this.allowHttp || trusted))) {
      throw new EgressRefusedError('scheme', `egress refused: scheme "${protocol}" is not allowed`);
    }
    const problem = this.portProblem(port);
    if (problem !== undefined) throw new EgressRefusedError('port', `egress refused: ${problem}`);
  }

  /**
   * Resolves `hostname` and checks EVERY address it resolves to: one refused address refuses the name
   * (a name answering with a public and a private address is refused). An IP literal is checked
   * without DNS. A name that does not resolve, resolves to nothing or resolves too slowly is refused
   * with reason `dns`.
   * @param hostname as in `URL.hostname` (brackets around IPv6 are accepted).
   * @param lookup overrides the policy's resolver (tests inject one).
   * @param trusted the host of a trusted origin: every address it resolves to passes.
   * @returns the checked addresses, in resolver order: dial one of these, never the name again.
   * @throws EgressRefusedError
   */
  async resolveAndCheck(hostname: string, lookup: EgressLookup = this.lookup, trusted = false): Promise<ResolvedAddress[]> {
    let name = hostname;
    if (parseIpAddress(hostname) === undefined) {
      // Through the URL parser, as for a URL's host (IDNA, full-width digits …); characters that would make
      // it read a port, a path or percent-decode something else are refused rather than reinterpreted.
      try {
        if (/[\s/?#@:\\%]/.test(hostname)) throw new TypeError('not a bare host');
        name = new URL(`http://${hostname}/`).hostname;
      } catch {
        throw new EgressRefusedError('host', 'egress refused: not a valid host name');
      }
    }
    const ip = parseIpAddress(name);
    if (ip !== undefined) {
      const refusal = trusted ? undefined : this.addressRefusal(ip.parsed, false);
      if (refusal !== undefined) throw new EgressRefusedError(refusal.reason, `egress refused: ${refusal.detail}`, ip.canonical);
      return [{ address: ip.canonical, family: ip.parsed.kind() === 'ipv4' ? 4 : 6 }];
    }
    const nameRefusal = trusted ? undefined : this.nameRefusal(name);
    if (nameRefusal !== undefined) throw new EgressRefusedError(nameRefusal.reason, `egress refused: ${nameRefusal.detail}`);

    const answers = await lookupWithTimeout(name, lookup, this.dnsTimeoutMs);
    const nameAllowed = this.nameAllowListed(normaliseName(name));
    const seen = new Set<string>();
    const checked: ResolvedAddress[] = [];
    for (const answer of answers) {
      const parsed = parseIpAddress(answer.address);
      if (parsed === undefined) {
        throw new EgressRefusedError('dns', `egress refused: ${name} resolved to something that is not an IP address`);
      }
      const refusal = trusted ? undefined : this.addressRefusal(parsed.parsed, nameAllowed);
      if (refusal !== undefined) {
        throw new EgressRefusedError(refusal.reason, `egress refused: ${name} resolves to ${refusal.detail}`, parsed.canonical);
      }
      if (!seen.has(parsed.canonical)) {
        seen.add(parsed.canonical);
        checked.push({ address: parsed.canonical, family: parsed.parsed.kind() === 'ipv4' ? 4 : 6 });
      }
    }
    return checked;
  }

  private portProblem(port: number): string | undefined {
    if (!isPort(port)) return `port ${port} is not a usable TCP port`;
    if (this.denyPorts.has(port)) return `port ${port} is denied`;
    if (this.allowPorts !== undefined && !this.allowPorts.has(port)) return `port ${port} is not among the allowed ports`;
    return undefined;
  }

  /** Checks on a host name before any resolution. */
  private nameRefusal(hostname: string): AddressRefusal | undefined {
    const name = normaliseName(hostname);
    if (name === '') return { reason: 'host', detail: 'the host name is empty' };
    const allowListed = this.nameAllowListed(name);
    if (this.metadataHostnames.has(name) && !this.rules.some((r) => r.kind === 'name' && r.name === name)) {
      return { reason: 'metadata', detail: `${name} is ${describeReason('metadata')}` };
    }
    if (allowListed) return undefined;
    if (isLocalhostName(name) && !this.allowPrivate) {
      return { reason: 'loopback', detail: `${name} always means this machine` };
    }
    // With only names on the allow-list, an unlisted name cannot pass whatever it resolves to.
    if (this.allowListOnly && !this.rules.some((r) => r.kind === 'cidr')) {
      return { reason: 'not-allow-listed', detail: `${name} is ${describeReason('not-allow-listed')}` };
    }
    return undefined;
  }

  private nameAllowListed(name: string): boolean {
    return this.rules.some((r) => (r.kind === 'name' ? r.name === name : r.kind === 'suffix' ? name.endsWith(r.suffix) : false));
  }

  /**
   * Why an address is refused, or `undefined`. `nameAllowListed`: the address came from resolving an
   * allow-listed name, which waives every check but the metadata one.
   */
  private addressRefusal(address: IpAddress, nameAllowListed: boolean): AddressRefusal | undefined {
    const cidrs = this.rules.flatMap((r) => (r.kind === 'cidr' ? [r.range] : []));
    // An IPv4-mapped address reaches the IPv4 host, so a v4 rule covers it too.
    const candidates: IpAddress[] = [address];
    if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
      candidates.push((address as ipaddr.IPv6).toIPv4Address());
    }
    const matching = cidrs.filter(([net, bits]) => candidates.some((c) => c.kind() === net.kind() && c.match(net, bits)));
    const refusal = classifyAddress(address, this.metadataAddresses);
    if (refusal?.reason === 'metadata') {
      // Only an exact, single-address rule lets a metadata endpoint through: a broad range never does.
      const exact = matching.some(([net, bits]) => bits === (net.kind() === 'ipv4' ? 32 : 128));
      return exact ? undefined : refusal;
    }
    if (matching.length > 0 || nameAllowListed) return undefined;
    if (this.allowListOnly) {
      return { reason: 'not-allow-listed', detail: `${address.toString()} is ${describeReason('not-allow-listed')}` };
    }
    if (refusal !== undefined && this.allowPrivate && PRIVATE_REASONS.has(refusal.reason)) return undefined;
    return refusal;
  }
}

/**
 * The policy for `options`, or undefined when they are not usable: each problem goes to
 * `problems` as `<path>: <problem>` (options of the wrong shape, read from configuration, too).
 */
export function egressPolicyOf(options: EgressPolicyOptions, path: string, problems: string[]): EgressPolicy | undefined {
  try {
    return new EgressPolicy(options);
  } catch (error) {
    const listed = error instanceof InvalidEgressPolicyError ? error.problems : [error instanceof Error ? error.message : 'invalid egress options'];
    problems.push(...listed.map((p) => `${path}: ${p}`));
    return undefined;
  }
}

/** The policy of options that passed {@link EgressOption}, or undefined for anything else. */
export function usableEgressPolicy(options: unknown): EgressPolicy | undefined {
  return isPlainObject(options) ? egressPolicyOf(options as EgressPolicyOptions, '', []) : undefined;
}

/** An option holding egress policy options: an object (`notObject` otherwise) that makes a usable policy. */
export function EgressOption(notObject: string): PropertyDecorator {
  const problemsOf = (options: unknown) => {
    const problems: string[] = [];
    egressPolicyOf(options as EgressPolicyOptions, '', problems);
    return problems.map((problem) => problem.replace(/^: /, ''));
  };
  return (target, key) => {
    // checks run in the order they are registered: the shape first
    Check(isPlainObject, notObject)(target, key);
    Check((options) => problemsOf(options).length === 0, (options) => problemsOf(options).join('\n'))(target, key);
  };
}
