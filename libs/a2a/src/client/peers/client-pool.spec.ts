import { describe, expect, it } from '@jest/globals';
import type { A2AClient } from '../a2a-client.js';
import { A2AClientPool, type PoolKey } from './client-pool.js';

function fakeClient(closed: string[], name: string): A2AClient {
  return { close: async () => void closed.push(name) } as unknown as A2AClient;
}

const key = (subject: string, peer = 'research', fields: Partial<PoolKey> = {}): PoolKey => ({ subject, scopeTenant: '', peer, credential: 'c', tenant: '', ...fields });

describe('A2AClientPool', () => {
  it('one client per (caller, peer, credential, tenant)', () => {
    const pool = new A2AClientPool(10);
    const closed: string[] = [];
    const a = pool.get(key('alice'), () => fakeClient(closed, 'a'));
    expect(pool.get(key('alice'), () => fakeClient(closed, 'again'))).toBe(a);
    for (const other of [key('bob'), key('alice', 'billing'), key('alice', 'research', { credential: 'd' }), key('alice', 'research', { tenant: 't' }), key('alice', 'research', { scopeTenant: 't' })]) {
      expect(pool.get(other, () => fakeClient(closed, 'x'))).not.toBe(a);
    }
    expect(pool.countFor('research')).toBe(5);
    expect(pool.countFor('billing')).toBe(1);
  });

  it('closes the least recently used client beyond the limit', async () => {
    const pool = new A2AClientPool(2);
    const closed: string[] = [];
    pool.get(key('a'), () => fakeClient(closed, 'a'));
    pool.get(key('b'), () => fakeClient(closed, 'b'));
    pool.get(key('a'), () => fakeClient(closed, 'a2')); // a is now the most recent
    pool.get(key('c'), () => fakeClient(closed, 'c'));
    await Promise.resolve();
    expect(closed).toEqual(['b']);
    await pool.close();
    expect(closed.sort()).toEqual(['a', 'b', 'c']);
  });
});
