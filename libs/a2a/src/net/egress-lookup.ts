/** Name resolution for the egress policy: the resolver it asks (injectable), and a bounded wait for its answer. */
import { lookup as dnsLookup } from 'node:dns/promises';
import { EgressRefusedError } from './egress-errors.js';

/** One address a name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a hostname to every address it has. Injectable so tests never touch real DNS; the default
 * is the system resolver (`dns.lookup`, `all: true`, in resolver order), the one `net.connect` uses.
 * @publicApi
 */
export type EgressLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** A resolution slower than this is refused, unless `dnsTimeoutMs` says otherwise. */
export const DEFAULT_DNS_TIMEOUT_MS = 5_000;

/** The system resolver, every address, in the order the resolver gives them. */
export const systemLookup: EgressLookup = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** The addresses `name` resolves to, refused (reason `dns`) when there are none, when it does not resolve, or when that takes longer than `timeoutMs`. */
export async function lookupWithTimeout(name: string, lookup: EgressLookup, timeoutMs: number): Promise<readonly ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new EgressRefusedError('dns', `egress refused: resolving ${name} took longer than ${timeoutMs} ms`)),
      timeoutMs,
    );
    // The resolver keeps the process alive while it works; this guard alone should not.
    timer.unref();
  });
  try {
    const answers = await Promise.race([lookup(name), timeout]);
    if (answers.length === 0) throw new EgressRefusedError('dns', `egress refused: ${name} resolves to no address`);
    return answers;
  } catch (err) {
    if (err instanceof EgressRefusedError) throw err;
    const code = (err as { code?: unknown } | null)?.code;
    throw new EgressRefusedError('dns', `egress refused: ${name} does not resolve${typeof code === 'string' ? ` (${code})` : ''}`);
  } finally {
    clearTimeout(timer);
  }
}
