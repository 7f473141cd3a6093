import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { downgradeInProgressRule } from '../../../src/diagnosis/rules/downgrade-in-progress.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import type { StatusData } from '../../../src/probes/evidence.js';
import { buildReport } from '../../../src/report/diagnosis-report.js';
import { renderText } from '../../../src/report/render-text.js';
import { clusterEvidence, ok, statusData } from '../../support/evidence/evidence.js';

/*
 * A cluster mid-downgrade as etcd 3.6 reports it (Status downgradeInfo and storageVersion,
 * test/fixtures/etcd-source/v3.6.0-status-response.proto): two members still on 3.6 with the
 * downgrade to 3.5.0 enabled, one already replaced by 3.5, which sends no downgrade fields.
 */
const NOW = Date.parse('2026-12-06T23:00:00Z');

const status = (id: string, version: string, extra: Partial<StatusData> = {}): StatusData =>
  statusData(id, { version, ...extra });

const downgrading = (storageVersion: string) => ({
  storageVersion,
  downgrade: { enabled: true, targetVersion: '3.5.0' },
});

describe('downgrade-in-progress', () => {
  it('names the members still on 3.6, which are ready, and how to finish or cancel, citing the guide', () => {
    const evidence = clusterEvidence({
      'etcd-1': { status: ok(status('a1', '3.6.4', downgrading('3.5.0'))) },
      'etcd-2': { status: ok(status('a2', '3.6.4', downgrading('3.6.0'))) },
      'etcd-3': { status: ok(status('a3', '3.5.30')) },
    });
    const { finding } = downgradeInProgressRule.evaluate(evidence, { now: NOW });
    expect(finding?.severity).toBe('info');
    expect(finding?.members).toEqual(['etcd-1', 'etcd-2']);
    expect(finding?.summary).toMatch(/being downgraded to etcd 3\.5\.0: 1 of 3 answering members run 3\.5/);
    expect(finding?.evidence.join('\n')).toContain('https://etcd.io/docs/v3.6/downgrades/downgrade_3_6/');
    const steps = finding?.steps.map((s) => s.text) ?? [];
    expect(steps[0]).toMatch(/^To finish: replace the binary of etcd-1 with etcd 3\.5/);
    expect(steps[1]).toMatch(/^Wait before replacing etcd-2: its storage version is not 3\.5/);
    expect(steps[2]).toMatch(/^To cancel instead: etcdctl downgrade cancel/);
  });

  it('health shows it without degrading the status, and the member rows carry the 3.6 fields', () => {
    const evidence = clusterEvidence({
      'etcd-1': {
        status: ok(
          status('a1', '3.7.0', {
            ...downgrading('3.6.0'),
            downgrade: { enabled: true, targetVersion: '3.6.0' },
          }),
        ),
      },
      'etcd-2': {
        status: ok(
          status('a2', '3.7.0', {
            ...downgrading('3.6.0'),
            downgrade: { enabled: true, targetVersion: '3.6.0' },
          }),
        ),
      },
      'etcd-3': {
        status: ok(
          status('a3', '3.7.0', {
            ...downgrading('3.6.0'),
            downgrade: { enabled: true, targetVersion: '3.6.0' },
          }),
        ),
      },
    });
    const diagnosis = diagnose(evidence, rules, { now: NOW });
    expect(diagnosis.status).toBe('healthy');
    const report = buildReport(evidence, diagnosis, { kind: 'health', durationMs: 1 });
    const f = report.findings.find((x) => x.cause === 'downgrade-in-progress');
    expect(f?.evidence.join('\n')).toContain('https://etcd.io/docs/v3.7/downgrades/downgrade_3_7/');
    expect(report.members[0]).toMatchObject({
      storageVersion: '3.6.0',
      downgrade: { enabled: true, targetVersion: '3.6.0' },
    });
    expect(renderText(report)).toContain('being downgraded to etcd 3.6.0');
  });

  it('stays quiet for 3.6 members with the downgrade not enabled, and for 3.4/3.5 members', () => {
    const evidence = clusterEvidence({
      'etcd-1': {
        status: ok(
          status('a1', '3.6.4', {
            storageVersion: '3.6.0',
            downgrade: { enabled: false, targetVersion: '' },
          }),
        ),
      },
      'etcd-2': { status: ok(status('a2', '3.5.30')) },
      'etcd-3': { status: ok(status('a3', '3.4.23')) },
    });
    expect(downgradeInProgressRule.evaluate(evidence, { now: NOW }).finding).toBeUndefined();
    const report = buildReport(evidence, diagnose(evidence, rules, { now: NOW }), {
      kind: 'health',
      durationMs: 1,
    });
    expect(report.members[1]).not.toHaveProperty('downgrade');
    expect(report.members[1]).not.toHaveProperty('storageVersion');
  });
});
