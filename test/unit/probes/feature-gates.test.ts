import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import { featureGatesOfFlags, parseFeatureGates } from '../../../src/etcd/feature-gates.js';
import { compareSnapshots } from '../../../src/probes/metrics-window.js';
import { parseEtcdMetrics } from '../../../src/probes/etcd-metrics.js';
import { parseEtcdPodSpec } from '../../../src/probes/kubernetes/etcd-pod-spec.js';
import { buildReport } from '../../../src/report/diagnosis-report.js';
import { renderText } from '../../../src/report/render-text.js';
import { clusterEvidence, metricsData, ok } from '../../support/evidence/evidence.js';

/*
 * etcd 3.6's feature gates, from shapes recorded at the release tags (no 3.6 or 3.7 binary here):
 * /metrics as test/fixtures/etcd-source/feature-enabled-v3.6.0.prom and -v3.7.0.prom record it, and
 * `--feature-gates` in pod specs as pkg/featuregate/feature_gate.go Set reads it.
 */
const page = (tag: string) =>
  readFileSync(new URL(`../../fixtures/etcd-source/feature-enabled-${tag}.prom`, import.meta.url), 'utf8');
/** A member's page: a few gauges every release has, and the feature gates. */
const memberPage = (gates: string) =>
  ['etcd_server_has_leader 1', 'etcd_server_is_leader 0', gates, ''].join('\n');

describe('etcd_server_feature_enabled on /metrics', () => {
  it('v3.6.0 defaults: every gate with its stage, TxnModeWriteWithSharedBuffer (BETA) on', () => {
    const got = parseEtcdMetrics(memberPage(page('v3.6.0')), 0);
    expect(got.ok).toBe(true);
    const gates = got.ok ? got.snapshot.featureGates : undefined;
    expect(gates?.map((g) => g.name)).toEqual([
      'AllAlpha',
      'AllBeta',
      'CompactHashCheck',
      'InitialCorruptCheck',
      'LeaseCheckpoint',
      'LeaseCheckpointPersist',
      'SetMemberLocalAddr',
      'StopGRPCServiceOnDefrag',
      'TxnModeWriteWithSharedBuffer',
    ]);
    expect(gates?.filter((g) => g.enabled)).toEqual([
      { name: 'TxnModeWriteWithSharedBuffer', stage: 'BETA', enabled: true },
    ]);
  });

  it('v3.7.0 with --feature-gates=InitialCorruptCheck=true: the gate reads on, and the 3.7 gates are there', () => {
    const text = page('v3.7.0').replace(
      'etcd_server_feature_enabled{name="InitialCorruptCheck",stage="ALPHA"} 0',
      'etcd_server_feature_enabled{name="InitialCorruptCheck",stage="ALPHA"} 1',
    );
    const got = parseEtcdMetrics(memberPage(text), 0);
    const on = got.ok ? got.snapshot.featureGates?.filter((g) => g.enabled).map((g) => g.name) : [];
    expect(on).toEqual(['FastLeaseKeepAlive', 'InitialCorruptCheck', 'TxnModeWriteWithSharedBuffer']);
  });

  it('a 3.4/3.5 page has none: no featureGates at all', () => {
    const got = parseEtcdMetrics(memberPage(''), 0);
    expect(got.ok && got.snapshot).not.toHaveProperty('featureGates');
  });

  it('health/diagnose show them on the member row, in JSON and in text', () => {
    const got = parseEtcdMetrics(memberPage(page('v3.6.0')), 0);
    if (!got.ok) throw new Error(got.error);
    const window = compareSnapshots(undefined, got.snapshot);
    const evidence = clusterEvidence({
      'etcd-1': { metrics: ok(metricsData({ featureGates: window.featureGates ?? [] })) },
      'etcd-2': {},
      'etcd-3': {},
    });
    const now = Date.parse('2026-12-06T23:00:00Z');
    const report = buildReport(evidence, diagnose(evidence, rules, { now }), {
      kind: 'diagnose',
      durationMs: 1,
    });
    expect(report.members[0]?.featureGates).toHaveLength(9);
    expect(report.members[1]).not.toHaveProperty('featureGates');
    expect(renderText(report)).toContain('i etcd-1: feature gates on: TxnModeWriteWithSharedBuffer (BETA)');
  });
});

/** A kubeadm etcd static pod running these flags. */
function pod(command: string[], env: Array<{ name: string; value: string }> = []): V1Pod {
  return {
    metadata: { name: 'etcd-master-1', namespace: 'kube-system' },
    spec: {
      nodeName: 'master-1',
      containers: [{ name: 'etcd', image: 'registry.k8s.io/etcd:3.6.4-0', command, env }],
    },
  };
}

describe('--feature-gates in pod specs', () => {
  it('parses Name=bool pairs as featureGate.Set does (Go ParseBool; a pair etcd refuses is left out)', () => {
    expect([
      ...parseFeatureGates(
        'InitialCorruptCheck=true,CompactHashCheck=1, LeaseCheckpoint = F,Bad=yes,NoValue',
      ),
    ]).toEqual([
      ['InitialCorruptCheck', true],
      ['CompactHashCheck', true],
      ['LeaseCheckpoint', false],
    ]);
  });

  it('--feature-gates=InitialCorruptCheck=true is the 3.6 form of --experimental-initial-corrupt-check', () => {
    const gate = parseEtcdPodSpec(
      pod(['etcd', '--name=master-1', '--feature-gates=InitialCorruptCheck=true']),
    );
    const experimental = parseEtcdPodSpec(
      pod(['etcd', '--experimental-initial-corrupt-check', '--name=master-1', '--data-dir=/var/lib/etcd']),
    );
    const fromEnv = parseEtcdPodSpec(
      pod(['etcd'], [{ name: 'ETCD_EXPERIMENTAL_INITIAL_CORRUPT_CHECK', value: 'true' }]),
    );
    for (const spec of [gate, experimental, fromEnv])
      expect(spec.featureGates).toEqual({ InitialCorruptCheck: true });
    // A bare boolean flag takes no value: the next word is a flag of its own.
    expect(experimental.memberName).toBe('master-1');
  });

  it('the gate wins over its experimental flag, and other experimental flags map to their gates', () => {
    const flags = new Map([
      ['feature-gates', 'InitialCorruptCheck=false'],
      ['experimental-initial-corrupt-check', 'true'],
      ['experimental-compact-hash-check-enabled', 'true'],
      ['experimental-compaction-batch-limit', '1000'],
    ]);
    expect(featureGatesOfFlags(flags)).toEqual({ InitialCorruptCheck: false, CompactHashCheck: true });
    expect(parseEtcdPodSpec(pod(['etcd', '--name=master-1']))).not.toHaveProperty('featureGates');
  });
});
