/**
 * Renders docs/chart-slow-disk.png, the chart the README shows, from real data: a local 3-member lab
 * with one follower's fdatasync slowed by strace, diagnosed under writes, charted as Slack gets it.
 * `node --import tsx scripts/example-chart.ts [out.png]` (needs etcd and strace, like the tests).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createChartRenderer } from '../src/charts/chart-renderer.js';
import { diagnosisChart } from '../src/charts/diagnosis-chart.js';
import { createDoctor } from '../src/doctor.js';
import { startEtcdLab } from '../test/support/lab/etcd-lab.js';
import type { Evidence } from '../src/probes/evidence.js';
import { DIAGNOSIS_PROBES, labConfig } from '../test/support/lab/lab-config.js';

const DELAY_MS = 200;
const out = process.argv[2] ?? 'docs/chart-slow-disk.png';

const lab = await startEtcdLab();
const doctor = createDoctor({
  config: labConfig(lab, { name: 'prod', probes: DIAGNOSIS_PROBES }),
  readFileBuffer: (p) => readFile(p),
});
try {
  const leader = await lab.leaderName();
  const victim = lab.members.map((m) => m.name).find((n) => n !== leader) ?? 'etcd-2';
  const slow = await lab.slowDisk(victim, DELAY_MS * 1000);
  let evidence: Evidence | undefined;
  try {
    const load = lab.writeLoad({ ratePerSecond: 60, durationMs: 4500, valueBytes: 256 });
    const report = await doctor.run('prod', 'diagnose', { onEvidence: (e) => (evidence = e) });
    await load;
    const chart = evidence && diagnosisChart(report, evidence);
    if (!chart)
      throw new Error(`nothing to chart: ${report.findings.map((f) => f.cause).join(', ') || 'healthy'}`);
    const image = await createChartRenderer().member(chart);
    await writeFile(out, image.png);
    console.log(
      `${out}: ${image.widthPx}x${image.heightPx}, ${image.png.length} bytes\n${image.title}\n${image.altText}`,
    );
  } finally {
    await slow.stop();
  }
} finally {
  await doctor.close();
  await lab.destroy();
}
