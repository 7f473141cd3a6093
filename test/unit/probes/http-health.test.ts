import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHttpGet } from '../../../src/clients/http.js';
import { parseCheckLines, READYZ_QUERY, readHttpHealth } from '../../../src/probes/http-health.js';
import { describeHttpHealth } from '../../../src/report/render-text.js';

/*
 * /readyz and /livez as etcd 3.6 answers them (test/fixtures/etcd-source/v3.6.0-readyz-livez.json,
 * recorded from server/etcdserver/api/etcdhttp/health.go at v3.6.0), served by a real HTTP server on
 * 127.0.0.1 and read through the project's HTTP client; a member that answers 404 (before 3.4.29 and
 * 3.5.11) is read on /health. The real labs (3.4.23: /health; 3.5.30: /readyz) are in
 * test/integration/faults/healthy.etcd.test.ts.
 */
type Answer = { status: number; body: string };
const SHAPES = JSON.parse(
  readFileSync(new URL('../../fixtures/etcd-source/v3.6.0-readyz-livez.json', import.meta.url), 'utf8'),
) as Record<string, Answer>;
const shape = (name: string): Answer => {
  const a = SHAPES[name];
  if (!a) throw new Error(`no shape ${name}`);
  return a;
};

describe('etcd HTTP health: /readyz and /livez (3.6+), /health before', () => {
  const http = createHttpGet(undefined);
  let server: Server;
  let url = '';
  let routes: Record<string, Answer> = {};
  const asked: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      asked.push(req.url ?? '');
      const answer = routes[req.url ?? ''] ?? shape('notFound');
      res.writeHead(answer.status, {
        'Content-Type': 'text/plain; charset=utf-8',
        'X-Content-Type-Options': 'nosniff',
      });
      res.end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await http.close();
    await new Promise((resolve) => server.close(resolve));
  });
  const read = () => readHttpHealth(http.get, url, AbortSignal.timeout(3000));

  it('parses the check lines in any order', () => {
    expect(parseCheckLines(shape('readyzCorrupt').body)).toEqual([
      { name: 'serializable_read', ok: true },
      { name: 'data_corruption', ok: false, reason: 'alarm activated: CORRUPT' },
      { name: 'non_learner', ok: true },
    ]);
  });

  it('a ready 3.6 member: /readyz and /livez, linearizable_read left out, and the evidence says which it used', async () => {
    routes = { [`/readyz${READYZ_QUERY}`]: shape('readyzOk'), '/livez?verbose': shape('livezOk') };
    asked.length = 0;
    const h = await read();
    expect(asked).toEqual(['/readyz?verbose&exclude=linearizable_read', '/livez?verbose']);
    expect(h.path).toBe('/readyz');
    expect(h.ok).toBe(true);
    expect(h.checks.map((c) => c.name).sort()).toEqual([
      'data_corruption',
      'non_learner',
      'serializable_read',
    ]);
    expect(describeHttpHealth(h)).toMatch(
      /^GET \/readyz \(linearizable_read left out: the read already failed\): ok; \/livez ok$/,
    );
  });

  it('a 3.6 member with a CORRUPT alarm: 503 with the failing check and its reason', async () => {
    routes = { [`/readyz${READYZ_QUERY}`]: shape('readyzCorrupt'), '/livez?verbose': shape('livezOk') };
    const h = await read();
    expect(h.ok).toBe(false);
    expect(describeHttpHealth(h)).toContain('[-]data_corruption failed: alarm activated: CORRUPT; /livez ok');
  });

  it('a 3.6 member whose local reads hang: /livez fails too', async () => {
    routes = { [`/readyz${READYZ_QUERY}`]: shape('readyzLearner'), '/livez?verbose': shape('livezFailed') };
    const h = await read();
    expect(h.live).toEqual({
      ok: false,
      checks: [{ name: 'serializable_read', ok: false, reason: 'context deadline exceeded' }],
    });
    expect(describeHttpHealth(h)).toContain('/livez failed (serializable_read: context deadline exceeded)');
  });

  it('a member without /readyz (404: before 3.4.29 and 3.5.11): /health, as before', async () => {
    routes = { '/health': shape('healthNoLeader') };
    asked.length = 0;
    const h = await read();
    expect(asked).toEqual(['/readyz?verbose&exclude=linearizable_read', '/health']);
    expect(h).toEqual({
      path: '/health',
      ok: false,
      checks: [{ name: 'health', ok: false, reason: 'RAFT NO LEADER' }],
    });
    expect(describeHttpHealth(h)).toBe(
      'GET /health (no /readyz before etcd 3.4.29 and 3.5.11): false (RAFT NO LEADER)',
    );
  });
});
