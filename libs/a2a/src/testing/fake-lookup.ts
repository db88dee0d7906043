/**
 * A DNS stand-in for tests: names map to fixed answers, or to a function of how many times the name was
 * asked (DNS rebinding). A trailing dot is ignored, as a resolver does. Unknown names fail like getaddrinfo's ENOTFOUND, so no test ever reaches a
 * real resolver.
 */
import { isIP } from 'node:net';
import type { EgressLookup, ResolvedAddress } from '../net/egress-lookup.js';

/** An answer that never comes (a resolver that hangs). */
export const NEVER = Symbol('never answers');

export type FakeAnswer = readonly string[] | typeof NEVER | ((call: number) => readonly string[]);

export interface FakeLookup extends EgressLookup {
  /** Every name asked, in order. */
  readonly calls: string[];
}

/** An `EgressLookup` answering from `table` (give it as `egress: { lookup }`). @publicApi */
export function fakeLookup(table: Record<string, FakeAnswer>): FakeLookup {
  const calls: string[] = [];
  const lookup = async (asked: string): Promise<readonly ResolvedAddress[]> => {
    const hostname = asked.replace(/\.$/, ''); // absolute and relative spellings of a name, as DNS treats them
    const callIndex = calls.filter((name) => name === hostname).length;
    calls.push(hostname);
    const entry = Object.hasOwn(table, hostname) ? table[hostname] : undefined;
    if (entry === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    if (entry === NEVER) return new Promise<never>(() => undefined);
    const answers = typeof entry === 'function' ? entry(callIndex) : entry;
    return answers.map((address) => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}
