import { describe, expect, it } from '@jest/globals';
import type { DiagnosisReport } from '../../../src/contracts/report-json.js';
import { renderText } from '../../../src/report/render-text.js';
import { renderViewText } from '../../../src/report/render-view-text.js';
import { watchFrame } from '../../../src/cli/watch-cli.js';

/** A log line an attacker could write: retitle the terminal (OSC), erase the line, a fake verdict. */
const HOSTILE = 'disk \x1b]0;pwned\x07\x1b[2K\r\x1b[32mall healthy\x1b[0m\x9b31m\x00\x7f end';

function report(): DiagnosisReport {
  return {
    cluster: 'prod',
    status: 'degraded',
    durationMs: 100,
    members: [],
    findings: [
      {
        cause: 'slow-disk',
        severity: 'warning',
        members: [],
        nodes: [],
        summary: HOSTILE,
        evidence: [HOSTILE],
        remediation: [],
        causedBy: null,
        steps: [{ text: HOSTILE }],
        unknowns: [HOSTILE],
      },
    ],
    probes: [],
    kind: 'analyze',
    collectedAt: new Date(0).toISOString(),
  } as unknown as DiagnosisReport;
}

/** C0 controls but newline and tab, DEL, and C1 controls (0x9b is a one-byte CSI). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for them.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

describe('text renderers strip control characters (issue 28 #7)', () => {
  it('analyze and the CLI (renderText)', () => {
    const text = renderText(report());
    expect(text).not.toMatch(CONTROL);
    expect(text).toContain('disk ]0;pwned[2K[32mall healthy[0m31m end');
  });

  it('the shell (renderViewText), a text view and a report', () => {
    expect(renderViewText({ kind: 'text', tone: 'info', lines: [HOSTILE] })).not.toMatch(CONTROL);
    expect(renderViewText({ kind: 'report', report: report(), buttons: [] })).not.toMatch(CONTROL);
  });

  it('watch (watchFrame)', () => {
    expect(watchFrame(report(), 10, 1)).not.toMatch(CONTROL);
  });
});
