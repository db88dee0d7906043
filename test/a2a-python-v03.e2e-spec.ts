/**
 * Opt-in: the real a2a-python 0.3 verifier (through ./support/a2a_python_v03_verify.py) against the
 * cards the demo serves, and its canonical payload against the fixture the port and the signer are
 * tested with. CI runs the port instead (signed-card-v03.e2e-spec.ts): a clean machine has neither
 * a2a-python's source nor pydantic 2 and PyJWT.
 *
 * To run it: A2A_PYTHON_V03_SRC=<a2a-python's src at a 0.3 tag>[:<another>] (e.g. v0.3.26 and
 * v0.3.21) and A2A_PYTHON=<a python with pydantic 2 and PyJWT> (default python3). Without
 * A2A_PYTHON_V03_SRC it is skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { V03_CANONICAL_CARD, V03_CANONICAL_PAYLOAD, V03_CANONICAL_PAYLOAD_0321 } from '../libs/a2a/src/protocol/v03/testing/card-canonical-fixture.js';
import { startDemo, type RunningApp } from './support/demo-app.js';
import type { Json } from './support/wire-client.js';

const SOURCES = (process.env.A2A_PYTHON_V03_SRC ?? '').split(':').filter((s) => s.length > 0);
const HARNESS = fileURLToPath(new URL('./support/a2a_python_v03_verify.py', import.meta.url));

function runPython(src: string, jwks: Json, cards: Json[]): { result: string; canonical?: string }[] {
  const out = execFileSync(process.env.A2A_PYTHON ?? 'python3', [HARNESS], {
    input: JSON.stringify({ jwks, cards }),
    env: { ...process.env, PYTHONPATH: src },
    timeout: 60_000,
  });
  return JSON.parse(out.toString()) as { result: string; canonical?: string }[];
}

// without sources, one skipped entry says why (jest refuses an empty `each`)
(SOURCES.length > 0 ? describe : describe.skip).each(SOURCES.length > 0 ? SOURCES : ['(A2A_PYTHON_V03_SRC not set)'])('the real a2a-python 0.3 verifier at %s', (src) => {
  let demo: RunningApp;
  beforeAll(async () => {
    demo = await startDemo({ DEMO_SIGN_CARD: '1', DEMO_API_KEYS: 'alice:k1' });
  });
  afterAll(() => demo.close());

  it('accepts the hybrid card and agent.json, refuses them tampered, and canonicalises the fixture as the port does', async () => {
    const jwks: Json = await (await fetch(`${demo.url}/.well-known/jwks.json`)).json();
    const hybrid: Json = await (await fetch(`${demo.url}/.well-known/agent-card.json`)).json();
    const legacy: Json = await (await fetch(`${demo.url}/.well-known/agent.json`)).json();
    const results = runPython(src, jwks, [hybrid, legacy, { ...hybrid, description: 'changed' }, { ...legacy, url: 'https://evil.example.com/a2a' }, V03_CANONICAL_CARD]);
    expect(results.slice(0, 4).map((r) => r.result)).toEqual(['ok', 'ok', 'InvalidSignaturesError', 'InvalidSignaturesError']);
    expect([V03_CANONICAL_PAYLOAD, V03_CANONICAL_PAYLOAD_0321]).toContain(results[4].canonical);
  });
});
