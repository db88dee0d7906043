/** The `allowHosts` entries of an egress policy: exact names, `*.suffix` wildcards, addresses and CIDR ranges. */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { parseIpAddress, type IpAddress } from './address-classification.js';

export type HostRule = { kind: 'name'; name: string } | { kind: 'suffix'; suffix: string } | { kind: 'cidr'; range: [IpAddress, number] };

/** A host name as compared: lower case, without trailing dots. */
export function normaliseName(hostname: string): string {
  return hostname.toLowerCase().replace(/\.+$/, '');
}

/** The rule an `allowHosts` entry states, or undefined when it is none. */
export function parseHostRule(entry: string): HostRule | undefined {
  const text = entry.trim();
  if (text.includes('/')) {
    try {
      const [net, bits] = ipaddr.parseCIDR(text);
      return { kind: 'cidr', range: [net, bits] };
    } catch {
      return undefined;
    }
  }
  const ip = parseIpAddress(text);
  if (ip !== undefined) return { kind: 'cidr', range: [ip.parsed, ip.parsed.kind() === 'ipv4' ? 32 : 128] };
  const wildcard = text.startsWith('*.');
  const bare = wildcard ? text.slice(2) : text;
  if (bare === '' || /[\s/?#@:\\%*]/.test(bare)) return undefined;
  let name: string;
  try {
    name = normaliseName(new URL(`http://${bare}/`).hostname);
  } catch {
    return undefined;
  }
  if (name === '' || isIP(name) !== 0) return undefined;
  return wildcard ? { kind: 'suffix', suffix: `.${name}` } : { kind: 'name', name };
}
