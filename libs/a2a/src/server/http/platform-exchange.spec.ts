import { describe, expect, it } from '@jest/globals';
import { subPathOf } from './platform-exchange.js';

describe('subPathOf (the REST path after the interface URL)', () => {
  const fastify = (url: string, route = '/a2a/rest/*') => ({ raw: { url }, routeOptions: { url: route } });
  const express = (originalUrl: string, route = '/a2a/rest/*path') => ({ originalUrl, route: { path: route } });

  it.each([
    ['/a2a/rest/message:send', '/message:send'],
    ['/a2a/rest/tasks/t-1:cancel?x=1', '/tasks/t-1:cancel'],
    ['/a2a/rest/tasks/a%2Fb', '/tasks/a%2Fb'],
    ['/a2a/rest', '/'],
    // empty segments are dropped, as the router's matching does
    ['/a2a/rest//tasks//t-1/', '/tasks/t-1'],
    ['/a2a/rest/tasks/', '/tasks'],
    ['//a2a///rest/tasks/t-1', '/tasks/t-1'],
    ['/a2a/rest/', '/'],
    ['/a2a/rest//', '/'],
    ['/a2a/rest?x=/y', '/'],
  ])('%s → %s, on both platforms', (url, subPath) => {
    expect(subPathOf(fastify(url))).toBe(subPath);
    expect(subPathOf(express(url))).toBe(subPath);
  });

  it('counts the segments of the route before its catch-all (a per-agent path, the interface URL itself)', () => {
    expect(subPathOf(fastify('/a2a/agents/echo/rest/tasks/t-1', '/a2a/agents/:agent/rest/*'))).toBe('/tasks/t-1');
    expect(subPathOf(fastify('/a2a/rest', '/a2a/rest'))).toBe('/');
    expect(subPathOf(express('/a2a/rest/', '/a2a/rest'))).toBe('/');
  });
});
