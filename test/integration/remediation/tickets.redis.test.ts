import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { finished, type Harness, startHarness } from '../../support/chat/remediation-harness.js';

interface Received {
  path: string;
  auth: string | undefined;
  body: Record<string, unknown>;
}

/** One local server playing Jira (/rest/api/2/issue), GitHub (/repos/o/r/issues) and a webhook (/hook). */
async function startTicketServer(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      received.push({ path: req.url ?? '', auth: req.headers.authorization, body });
      res.writeHead(201, { 'Content-Type': 'application/json' });
      if (req.url === '/rest/api/2/issue') res.end(JSON.stringify({ id: '10001', key: 'OPS-42', self: 'x' }));
      else if (req.url?.startsWith('/repos/'))
        res.end(JSON.stringify({ number: 7, html_url: 'https://github.example/acme/infra/issues/7' }));
      else res.end(JSON.stringify({ url: 'https://tickets.example/T-9' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server };
}

describe.each([
  ['jira', '', 'OPS', /OPS-42/],
  ['github', '', 'acme/infra', /github\.example\/acme\/infra\/issues\/7/],
  ['webhook', '/hook', undefined, /tickets\.example\/T-9/],
] as const)('open-ticket to %s', (kind, path, project, link) => {
  let tickets: Awaited<ReturnType<typeof startTicketServer>>;
  let h: Harness;

  beforeAll(async () => {
    tickets = await startTicketServer();
    h = await startHarness(
      [
        {
          name: 'local',
          etcd: { endpoints: ['http://127.0.0.1:9'] },
          tickets: {
            kind,
            url: `${tickets.url}${path}`,
            credentialEnv: 'FAKE_TICKET_TOKEN',
            ...(project ? { project } : {}),
          },
        },
      ],
      `rem-ticket-${kind}`,
    );
  });
  afterAll(async () => {
    await h?.close();
    await new Promise((r) => tickets?.server.close(r));
  });

  it('records the ticket with the diagnosis and thread link, posts the link, and opens one per diagnosis', async () => {
    const anchor = await h.anchor();
    const context = {
      rootCause: 'slow-disk',
      leader: 'etcd-2',
      reportText:
        'Diagnosis of local: DEGRADED\nslow-disk on etcd-2: wal fsync p99 212 ms (etcd FAQ: < 10 ms)',
      threadChannel: 'C0MEMORY',
      threadTs: anchor.ts,
      threadLink: `memory://C0MEMORY/${anchor.ts}`,
    };
    const button = await h.button('open-ticket', {}, { context });
    // Read-only: anyone may press it, and it runs without a confirmation.
    await h.chat.click(anchor, button, { user: 'U0ANYONE' });
    await h.chat.waitFor((c) => finished(c) !== undefined, 10_000);
    expect(finished(h.chat)?.text).toMatch(link);
    expect(finished(h.chat)?.threadTs).toBe(anchor.ts);
    expect(tickets.received).toHaveLength(1);
    const sent = JSON.stringify(tickets.received[0]?.body);
    expect(sent).toContain('wal fsync p99 212 ms');
    expect(sent).toContain(`memory://C0MEMORY/${anchor.ts}`);
    expect(sent).toContain('slow-disk');
    expect(tickets.received[0]?.auth).toMatch(/secret-token/);

    // The same diagnosis again: no second ticket, the link and an "Open another ticket" button instead.
    const again = await h.button('open-ticket', {}, { context });
    await h.chat.click(anchor, again, { user: 'U0ANYONE' });
    await h.chat.waitFor((c) => c.messages.some((m) => /already has a ticket/.test(m.text)), 10_000);
    expect(tickets.received).toHaveLength(1);
    const repeat = h.chat.messages.find((m) => /already has a ticket/.test(m.text));
    const another = repeat?.view.kind === 'text' ? repeat.view.buttons?.[0] : undefined;
    if (!another) throw new Error('no Open another ticket button');
    await h.chat.click(anchor, another, { user: 'U0ANYONE' });
    await h.chat.waitFor(() => tickets.received.length === 2, 10_000);
  });
});

describe('open-ticket when the tracker refuses, or the URL is not https', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end('boom <!channel> token=xoxb-echoed-back internal stack trace');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise((r) => server?.close(r)));

  const openOne = async (h: Harness) => {
    const anchor = await h.anchor();
    await h.chat.click(anchor, await h.button('open-ticket', {}), { user: 'U0ANYONE' });
    await h.chat.waitFor((c) => finished(c) !== undefined, 10_000);
    return finished(h.chat)?.text ?? '';
  };

  it("keeps the tracker's answer out of Slack and the audit trail", async () => {
    const h = await startHarness(
      [
        {
          name: 'local',
          etcd: { endpoints: ['http://127.0.0.1:9'] },
          tickets: { kind: 'webhook', url, credentialEnv: 'FAKE_TICKET_TOKEN' },
        },
      ],
      'rem-ticket-500',
    );
    try {
      const done = await openOne(h);
      expect(done).toMatch(
        /failed in .*the tracker at http:\/\/127\.0\.0\.1:\d+ answered HTTP 500; its answer is in the worker log/,
      );
      const trail = JSON.stringify(await h.audit());
      for (const text of [done, trail]) expect(text).not.toMatch(/boom|xoxb|stack trace/);
    } finally {
      await h.close();
    }
  });
});
