/** A peer agent whose card is served but whose only interface nobody answers on: its tool is listed, every call fails. */
import { startHttpServer, type LoopbackServer } from 'nestjs-a2a/testing';

/** Serves the card of `broken` (one skill, `fix`) on 127.0.0.1; its JSON-RPC interface is `interfaceUrl`. */
export function startBrokenPeer(interfaceUrl: string): Promise<LoopbackServer> {
  const card = {
    name: 'broken',
    description: 'lists an interface nobody answers on',
    version: '1.0.0',
    supportedInterfaces: [{ url: interfaceUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'fix', name: 'Fix', description: 'fixes', tags: ['fix'] }],
  };
  return startHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card)));
}
