import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { CAUSES } from '../../../src/diagnosis/finding.js';
import {
  CATALOGUE,
  type CatalogueEntry,
  catalogueEntryOf,
  catalogueMarkdown,
  DOCS_BEGIN,
  DOCS_END,
  versionsOf,
} from '../../../src/etcd/catalogue.js';
import { parseZap, scanLogText } from '../../../src/etcd/scan-logs.js';
import { CATALOGUE_LINES } from './catalogue-lines.js';

const keyOf = (e: CatalogueEntry) => e.zap ?? e.text ?? '';
const entryOfLine = (line: string) => catalogueEntryOf(line, parseZap(line)?.msg);

describe('the catalogue of what etcd writes', () => {
  it('names for each entry a cause of finding.ts, or benign, or context', () => {
    const allowed = new Set<string>([...CAUSES, 'benign', 'context']);
    expect(CATALOGUE.filter((e) => !allowed.has(e.evidence)).map(keyOf)).toEqual([]);
  });

  it('gives each entry a message, the versions that write it, and one line of meaning', () => {
    for (const e of CATALOGUE) {
      expect(keyOf(e).length).toBeGreaterThan(6);
      expect(versionsOf(e).length).toBeGreaterThan(0);
      expect(e.meaning).not.toMatch(/\n/);
      expect(e.meaning.length).toBeLessThanOrEqual(140);
    }
  });

  it('holds each zap message and each text once', () => {
    const zaps = CATALOGUE.flatMap((e) => (e.zap ? [e.zap] : []));
    const texts = CATALOGUE.flatMap((e) => (e.text ? [e.text] : []));
    expect(new Set(zaps).size).toBe(zaps.length);
    expect(new Set(texts).size).toBe(texts.length);
  });

  // One test per entry: each line of the shape etcd writes (zap JSON and console for zap messages,
  // capnslog for the 2.3–3.4 formats, raft's three loggers) is read as exactly that entry.
  it.each(CATALOGUE.map((e) => [keyOf(e), e] as const))(
    '%s: its lines are read as this entry',
    (key, entry) => {
      const lines = CATALOGUE_LINES.filter((l) => l.entry === key);
      expect(lines.length).toBeGreaterThan(0);
      if (entry.zap)
        expect(lines.map((l) => l.shape)).toEqual(expect.arrayContaining(['zap', 'zap-console']));
      if (entry.text) expect(lines.some((l) => l.shape === 'capnslog')).toBe(true);
      for (const { line } of lines) {
        const read = entryOfLine(line);
        expect({ line, read: read ? keyOf(read) : undefined }).toEqual({ line, read: key });
      }
    },
  );

  it('reads no entry in a line etcd did not write so', () => {
    expect(entryOfLine('2024-05-14 08:30:00.000000 E | etcdserver: something new happened')).toBeUndefined();
    expect(
      entryOfLine('{"level":"error","ts":"2024-05-14T08:30:00Z","msg":"something new happened"}'),
    ).toBeUndefined();
  });
});

describe('docs/detection.md', () => {
  it('holds the catalogue table as the catalogue renders it', () => {
    const doc = readFileSync(new URL('../../../docs/detection.md', import.meta.url), 'utf8');
    const from = doc.indexOf(DOCS_BEGIN);
    const to = doc.indexOf(DOCS_END);
    expect(from).toBeGreaterThan(0);
    expect(doc.slice(from, to + DOCS_END.length)).toBe(catalogueMarkdown());
  });
});

describe('unexplained error lines, as the catalogue reads them', () => {
  const zapLine = (level: string, msg: string, error: string) =>
    JSON.stringify({ level, ts: '2024-05-14T08:30:00.000Z', caller: 'etcdmain/main.go:1', msg, error });

  it('an error line the catalogue holds benign or context is not unexplained', () => {
    const text = [
      zapLine('error', 'failed to notify systemd for readiness', 'No socket'),
      '2018-03-02 08:30:00.123456 E | etcdmain: forgot to set Type=notify in systemd service file?',
      zapLine('error', 'unexpected error code', 'rpc error: code = Unknown'),
    ].join('\n');
    expect(scanLogText(text).unexplainedErrors).toEqual([]);
  });

  it('an error line it knows as evidence keeps its error, with what etcd means and the cause', () => {
    const [e] = scanLogText(
      zapLine('fatal', 'failed to purge wal file', 'remove x.wal: permission denied'),
    ).unexplainedErrors;
    expect(e).toMatchObject({
      message: 'failed to purge wal file: remove x.wal: permission denied',
      evidenceFor: 'etcd-crash',
      meaning: expect.stringContaining('could not delete old WAL files and stops'),
    });
  });

  it('an error line it does not know stays raw', () => {
    const [e] = scanLogText(zapLine('error', 'something new happened', 'boom')).unexplainedErrors;
    expect(e).toMatchObject({ message: 'something new happened: boom' });
    expect(e?.meaning).toBeUndefined();
  });
});
