"""Runs a2a-python 0.3's own Agent Card verifier for test/a2a-python-v03.e2e-spec.ts (opt-in).

Reads {"jwks": {...}, "cards": [card, ...]} on stdin and prints, per card, "ok" or the name of the
error the verifier raised, plus the canonical payload a2a-python computes for it. Needs
a2a-python's src (at a 0.3 tag) on PYTHONPATH, pydantic 2 and PyJWT with cryptography.
"""
import json
import sys

from jwt import PyJWK

from a2a.types import AgentCard
from a2a.utils.helpers import canonicalize_agent_card
from a2a.utils.signing import create_signature_verifier

request = json.load(sys.stdin)
keys = {jwk['kid']: jwk for jwk in request['jwks']['keys']}
verify = create_signature_verifier(lambda kid, jku: PyJWK(keys[kid]), ['ES256', 'RS256', 'EdDSA'])
results = []
for raw in request['cards']:
    try:
        card = AgentCard.model_validate(raw)
    except Exception as error:  # noqa: BLE001 - reported, not handled
        results.append({'result': type(error).__name__})
        continue
    canonical = canonicalize_agent_card(card)
    try:
        verify(card)
        results.append({'result': 'ok', 'canonical': canonical})
    except Exception as error:  # noqa: BLE001
        results.append({'result': type(error).__name__, 'canonical': canonical})
json.dump(results, sys.stdout)
