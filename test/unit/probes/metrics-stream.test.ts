import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHttpGet } from '../../../src/clients/http.js';
import { createMetricsLineFilter, parseEtcdMetrics } from '../../../src/probes/etcd-metrics.js';

const PAGE = readFileSync(
  new URL('../../fixtures/metrics/etcd-3.4.23-3member-leader.txt', import.meta.url),
  'utf8',
);

/**
 * The metrics probe reads /metrics a line at a time as it arrives (a big page is never held whole). A real etcd page
 * sent in odd-sized pieces, cut inside lines and inside a multi-byte character, must read exactly
 * as the whole text does.
 */
describe('/metrics read line by line over HTTP', () => {
  let server: Server;
  let url: string;
  const http = createHttpGet(undefined);

  beforeAll(async () => {
    // A multi-byte label value, so a chunk boundary falls inside a character.
    const body = Buffer.from(`${PAGE}etcd_server_go_version{server_go_version="gö1.19"} 1`);
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let at = 0; at < body.length; at += 997) res.write(body.subarray(at, at + 997));
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  });
  afterAll(async () => {
    await http.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('gives the same snapshot as parsing the whole page', async () => {
    const lines: string[] = [];
    const filter = createMetricsLineFilter();
    const res = await http.get(url, AbortSignal.timeout(5000), {
      onLine: (line) => {
        lines.push(line);
        filter.line(line);
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toBe('');
    expect(lines.at(-1)).toBe('etcd_server_go_version{server_go_version="gö1.19"} 1');
    expect(lines.join('\n')).toBe(`${PAGE}etcd_server_go_version{server_go_version="gö1.19"} 1`);
    const whole = parseEtcdMetrics(PAGE, 42);
    expect(whole.ok).toBe(true);
    expect(filter.parse(42)).toEqual(whole);
  });

  it('gives the same snapshot read as arriving text, cut anywhere (what the probe reads)', async () => {
    const pieces: string[] = [];
    const filter = createMetricsLineFilter();
    const res = await http.get(url, AbortSignal.timeout(5000), {
      onText: (text) => {
        pieces.push(text);
        filter.text(text);
      },
    });
    expect(res.status).toBe(200);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(`${PAGE}etcd_server_go_version{server_go_version="gö1.19"} 1`);
    expect(filter.parse(42)).toEqual(parseEtcdMetrics(PAGE, 42));
  });

  it('gives the same snapshot read as arriving bytes, decoding only what it keeps (what the probe reads)', async () => {
    let chunks = 0;
    const filter = createMetricsLineFilter();
    const res = await http.get(url, AbortSignal.timeout(5000), {
      onBytes: (chunk) => {
        chunks += 1;
        filter.bytes(chunk);
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toBe('');
    expect(chunks).toBeGreaterThan(1);
    expect(filter.parse(42)).toEqual(parseEtcdMetrics(PAGE, 42));
  });

  it('reads bytes cut anywhere, inside a line or a character, as it reads the same lines one by one', () => {
    const page = `${PAGE}  etcd_server_has_leader 1 \r\n\n# c\n\u00a0etcd_x 1\netcd_server_id{server_id="gö"} 1\nétcd 1\netcd_server_is_leader 0`;
    const byLine = (text: string) => {
      const f = createMetricsLineFilter();
      for (const line of text.split('\n')) f.line(line);
      return f.parse(7);
    };
    const bytes = Buffer.from(page, 'utf8');
    for (const size of [1, 2, 3, 7, 64, 997, 65536]) {
      const f = createMetricsLineFilter();
      for (let at = 0; at < bytes.length; at += size) f.bytes(bytes.subarray(at, at + size));
      expect([size, f.parse(7)]).toEqual([size, byLine(page)]);
    }
    // The same page without the line that is not Prometheus text reads the same both ways too.
    const good = Buffer.from(page.replace('\nétcd 1', ''), 'utf8');
    const f = createMetricsLineFilter();
    for (let at = 0; at < good.length; at += 5) f.bytes(good.subarray(at, at + 5));
    const parsed = f.parse(7);
    expect(parsed).toEqual(byLine(page.replace('\nétcd 1', '')));
    expect(parsed.ok).toBe(true);
    // A kept line with a character cut in two between chunks is decoded whole.
    const small = Buffer.from('etcd_server_id{server_id="gö"} 1\netcd_server_has_leader 1\n', 'utf8');
    const one = createMetricsLineFilter();
    for (let at = 0; at < small.length; at += 1) one.bytes(small.subarray(at, at + 1));
    const read = one.parse(7);
    expect(read.ok && read.snapshot.gauges.serverId).toBe('gö');
  });

  it('reads text cut at every kind of place as it reads the same lines one by one', () => {
    const page = `${PAGE}  etcd_server_has_leader 1 \r\n\n# c\n\u00a0etcd_x 1\netcd_server_is_leader 0`;
    const byLine = createMetricsLineFilter();
    for (const line of page.split('\n')) byLine.line(line);
    const expected = byLine.parse(7);
    for (const size of [1, 2, 7, 64, 997, 4096]) {
      const byText = createMetricsLineFilter();
      for (let at = 0; at < page.length; at += size) byText.text(page.slice(at, at + size));
      expect([size, byText.parse(7)]).toEqual([size, expected]);
    }
    const bad = createMetricsLineFilter();
    bad.text('etcd_server_has_leader 1\n<ht');
    bad.text('ml>\netcd_server_is_leader 1');
    expect(bad.parse(0)).toEqual({ ok: false, error: 'line 2 reads "<html>"' });
  });

  it('still names the first line that is not Prometheus text', () => {
    const filter = createMetricsLineFilter();
    for (const line of ['etcd_server_has_leader 1', '<html>', 'etcd_server_is_leader 1']) filter.line(line);
    expect(filter.parse(0)).toEqual({ ok: false, error: 'line 2 reads "<html>"' });
  });

  it('accepts exactly the lines Prometheus text format allows (blank, comment, name then labels or space)', () => {
    const format = /^(?:$|#|[a-zA-Z_:][a-zA-Z0-9_:]*[{ \t])/;
    const lines = [
      'etcd_server_has_leader 1',
      'etcd_server_has_leader\t1',
      'etcd_disk_wal_fsync_duration_seconds_bucket{le="0.001"} 3',
      ':colon_name 1',
      '_under9 1',
      '   etcd_indented 1  ',
      '\u00a0etcd_nbsp 1\r',
      '# HELP etcd_server_has_leader Whether or not a leader exists.',
      '   ',
      'etcd_server_has_leader',
      '9etcd 1',
      'etcd-server 1',
      'étcd 1',
      '{le="1"} 2',
      '<html>',
    ];
    for (const line of lines) {
      const filter = createMetricsLineFilter();
      filter.line('etcd_server_is_leader 1');
      filter.line(line);
      const result = filter.parse(0);
      const accepted = result.ok || !result.error.startsWith('line 2 reads');
      expect([line, accepted]).toEqual([line, format.test(line.trim())]);
    }
  });
});
