import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { MAX_SCANNED_LINE_CHARS } from '../../../src/etcd/scan-logs.js';
import { scanLogStream } from '../../../src/offline/log-stream.js';
import { collectScenario } from '../../support/kube/kube-evidence.js';

/**
 * Issue 37 item 5: the same lines give the same reading live and offline. Each real etcd log of the
 * corpus (test/fixtures/real-logs/) that is shaped as a pod's log (every line etcd's own zap JSON,
 * capnslog or klog, no collector's prefix) is served by the fake Kubernetes API as the log of
 * etcd-master-1's etcd container and read by the live scan (the control-plane log probe, through
 * real Kubernetes clients), and read by the offline reader of `etcd-doctor analyze` from the same
 * text: every signal the rules read (counts, durations, peers, first and last times, crashes,
 * unexplained errors) is the same, so the rules see the same log both ways.
 */
const DIR = fileURLToPath(new URL('../../fixtures/real-logs', import.meta.url));
const POD_SHAPED =
  /^(?:\{"level"|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)? [DINWECF] \| |[IWEF]\d{4} \d\d:\d\d:\d\d)/;
const ETCD_CONTAINER = 'kube-system/etcd-master-1/etcd';

interface Row {
  file: string;
}
const rows = (JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8')) as { logs: Row[] }).logs;
const podShaped = rows.filter((row) => {
  const lines = readFileSync(join(DIR, row.file), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);
  return lines.length > 0 && lines.every((l) => POD_SHAPED.test(l));
});

async function offlineSignals(file: string, text: string) {
  async function* lines() {
    yield* text.split('\n');
  }
  const writers = await scanLogStream(lines(), { name: file, maxLineChars: MAX_SCANNED_LINE_CHARS });
  expect(writers).toHaveLength(1);
  return writers[0]?.signals;
}

describe('a real etcd log read live from a pod and offline from a file', () => {
  it('the corpus holds pod-shaped logs of zap and capnslog alike', () => {
    expect(podShaped.length).toBeGreaterThanOrEqual(12);
  });

  it.each(podShaped.map((r) => [r.file]))('%s: the same signals both ways', async (file) => {
    const text = readFileSync(join(DIR, file), 'utf8');
    const run = await collectScenario('kubeadm-1.29-healthy', {
      logs: { [ETCD_CONTAINER]: text },
      // The whole log: the live bounds (tail, bytes) are wider than any corpus log.
      settings: { logTailLines: 100_000, logLimitBytes: 16 * 1024 * 1024 },
    });
    try {
      expect(run.kubernetes.logs.ok).toBe(true);
      const scans = run.kubernetes.logs.ok ? run.kubernetes.logs.data.scans : [];
      const live = scans.find((s) => s.pod === 'etcd-master-1' && s.container === 'etcd' && !s.previous);
      expect(live?.signals).toEqual(await offlineSignals(file, text));
    } finally {
      await run.fake.close();
    }
  });
});
